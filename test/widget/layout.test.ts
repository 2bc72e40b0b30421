// The form fits every language on a phone's width: at 320 and 375 px, in all 48 languages, no label or input
// overlaps another and nothing scrolls sideways (long labels stack the country code over the number).
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { LANGUAGES } from '../../rules/language.js';
import type { Strings } from '../../widget/i18n/en.js';
import { labelIs, mockApi, mount, setViewport } from './helpers.js';

afterEach(async () => {
  fixtureCleanup();
  await setViewport({ width: 800, height: 600 });
});

const overlap = (a: DOMRect, b: DOMRect) =>
  Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;

describe('<kyc-onboard> layout', () => {
  it('no label or input overlaps another, and nothing scrolls sideways, in 48 languages at 320 and 375 px', async function (this: TestContext) {
    this.timeout(60_000); // 96 forms
    mockApi();
    const problems: string[] = [];
    for (const width of [320, 375]) {
      // MiniBrowser's window is never narrower than 447 px (WebKitGTK): no phone widths to lay out there.
      if ((await setViewport({ width, height: 900 })) === 'unsupported') this.skip();
      for (const code of LANGUAGES) {
        const t = code === 'en' ? undefined : ((await import(`../../widget/i18n/${code}.js`)) as { default: Strings }).default;
        const el = await mount(html`<kyc-onboard lang=${code} sms country-code="+61"></kyc-onboard>`);
        if (t) await labelIs(el, 'familyName', t.familyName);
        await el.updateComplete;
        const boxes = [...el.shadowRoot!.querySelectorAll<HTMLElement>('label, legend, input, button')]
          .map((node) => ({ node, r: node.getBoundingClientRect() }))
          .filter(({ r }) => r.width > 0 && r.height > 0);
        for (let i = 0; i < boxes.length; i++) {
          const a = boxes[i]!;
          // A legend holds its group: it may contain the group's own boxes, never cross another's.
          for (const b of boxes.slice(i + 1))
            if (overlap(a.r, b.r) && !a.node.contains(b.node) && a.node.getAttribute('for') !== b.node.id && !(a.node.tagName === 'LEGEND'))
              problems.push(
                `${code} @${width}: ${a.node.getAttribute('for') ?? a.node.id ?? a.node.tagName} × ${b.node.id || b.node.getAttribute('for') || b.node.tagName}`,
              );
          if (a.r.right > document.documentElement.clientWidth + 0.5 || a.r.left < -0.5)
            problems.push(`${code} @${width}: ${a.node.id || a.node.getAttribute('for') || a.node.tagName} outside the page`);
        }
        if (document.documentElement.scrollWidth > document.documentElement.clientWidth)
          problems.push(`${code} @${width}: scrolls sideways`);
        fixtureCleanup();
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it('no element is wider than the widget, in 48 languages at 280, 320 and 375 px', async function (this: TestContext) {
    this.timeout(90_000); // 144 forms
    mockApi();
    const problems: string[] = [];
    for (const width of [280, 320, 375]) {
      // MiniBrowser's window is never narrower than 447 px (WebKitGTK): no phone widths to lay out there.
      if ((await setViewport({ width, height: 900 })) === 'unsupported') this.skip();
      for (const code of LANGUAGES) {
        const t = code === 'en' ? undefined : ((await import(`../../widget/i18n/${code}.js`)) as { default: Strings }).default;
        const el = await mount(html`<kyc-onboard lang=${code} sms country-code="+61"></kyc-onboard>`);
        if (t) await labelIs(el, 'familyName', t.familyName);
        await el.updateComplete;
        const box = el.getBoundingClientRect();
        for (const node of el.shadowRoot!.querySelectorAll<HTMLElement>('label, legend, input, button, p, h2, span')) {
          const r = node.getBoundingClientRect();
          if (r.width === 0) continue;
          // Past the widget's own edge by more than a rounding error (the 2026-11-28 walk saw 4–11 px in pl, ru, uk).
          if (r.right > box.right + 0.5 || r.left < box.left - 0.5)
            problems.push(
              `${code} @${width}: ${node.id || node.getAttribute('for') || node.tagName} ${Math.round(r.right - box.right)} px past`,
            );
        }
        fixtureCleanup();
      }
    }
    expect(problems).to.deep.equal([]);
  });
});
