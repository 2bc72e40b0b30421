// The widget's own styles reach the browser: the focus ring from --kyc-color-focus (in the source and in the built
// bundle, whose CSS is minified), and a host page's inherited text styles stop at the shadow root.
import { expect, fixtureCleanup, html, waitUntil } from '@open-wc/testing';
import type { KycOnboard } from '../../widget/index.js';
import { $, mount } from './helpers.js';

afterEach(() => {
  fixtureCleanup();
  sessionStorage.clear();
});

/** The focus ring of an input, as the browser computes it. */
function ring(win: Window, input: HTMLElement) {
  input.focus();
  const s = win.getComputedStyle(input);
  return { width: parseFloat(s.outlineWidth), color: s.outlineColor, style: s.outlineStyle };
}

describe('<kyc-onboard> styles', () => {
  it('draws the focus ring with --kyc-color-focus, at least 2 px wide', async () => {
    const el = await mount(html`<kyc-onboard style="--kyc-color-focus: rgb(200, 0, 100)"></kyc-onboard>`);
    const r = ring(window, $(el, '#familyName'));
    expect(r.style).to.equal('solid');
    expect(r.width).to.be.at.least(2);
    expect(r.color).to.equal('rgb(200, 0, 100)');
  });

  it('the built bundle keeps every rule written (the focus ring of inputs and of focused headings)', async () => {
    const frame = document.createElement('iframe');
    frame.src = '/__csp/page.html';
    frame.style.width = '600px';
    frame.style.height = '900px';
    const loaded = new Promise((r) => frame.addEventListener('load', r, { once: true }));
    document.body.append(frame);
    await loaded;
    const win = frame.contentWindow as Window & typeof globalThis;
    await waitUntil(() => win.customElements.get('kyc-onboard'), 'bundle defined the element', { timeout: 8000 });
    const el = win.document.querySelector('kyc-onboard') as KycOnboard;
    el.style.setProperty('--kyc-color-focus', 'rgb(200, 0, 100)');
    await el.updateComplete;
    const r = ring(win, el.shadowRoot!.querySelector<HTMLInputElement>('#familyName')!);
    expect(r.width).to.be.at.least(2);
    expect(r.color).to.equal('rgb(200, 0, 100)');
    // The rule that also rings focused headings (`tabindex="-1"`) survived minification: an invalid selector
    // would have made the browser drop it, and every ring with it.
    const selectors = el.shadowRoot!.adoptedStyleSheets.flatMap((sheet) =>
      [...sheet.cssRules].map((rule) => (rule as CSSStyleRule).selectorText ?? ''),
    );
    expect(selectors.some((s) => s.includes('[tabindex="-1"]:focus-visible'))).to.equal(true, selectors.join(' | '));
    frame.remove();
  });

  it("a host page's text-align, line-height and font-size do not leak into the layout", async () => {
    const plain = await mount();
    const base = (el: KycOnboard) => getComputedStyle($(el, 'label[for=familyName]'));
    const expected = { lineHeight: base(plain).lineHeight, fontSize: base(plain).fontSize };
    fixtureCleanup();
    const wrapper = document.createElement('div');
    wrapper.style.cssText = 'text-align: center; line-height: 3; font-size: 30px; letter-spacing: 4px';
    document.body.append(wrapper);
    const el = document.createElement('kyc-onboard');
    wrapper.append(el);
    await el.updateComplete;
    const s = base(el);
    expect(s.textAlign).to.equal('start');
    expect(s.lineHeight).to.equal(expected.lineHeight);
    expect(s.fontSize).to.equal(expected.fontSize);
    expect(s.letterSpacing).to.equal('normal');
    wrapper.remove();
  });
});
