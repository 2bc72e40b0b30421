// Every state a person waits in fits every language on a phone's width (issue 42), not only the form: the phone
// hand-off's code, the texted link after "Send again", a busy vendor's "try again after", and the outcome, in all
// 48 languages at 280, 320 and 375 px. Each state is reached once per width; the language is then changed in place
// (the element follows `lang`), so the words change and the state does not. The width is the widget's own (a phone's
// column, a partner's sidebar), not the window's: every engine can size an element, and WebKitGTK's window cannot be
// narrower than 447 px.
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import { LANGUAGES } from '../../rules/language.js';
import type { KycOnboard } from '../../widget/kyc-onboard.js';
import en, { type Strings } from '../../widget/i18n/en.js';
import { check, errorAnswer, fillValid, finalAfter, linkAnswer, mockApi, mount, submit, until, waitState } from './helpers.js';

const startUrl = location.href;
/** What a state leaves behind (the session a page reload resumes, the URL) gone, so the next element starts afresh. */
function forget(): void {
  fixtureCleanup();
  sessionStorage.clear();
  history.replaceState(null, '', startUrl);
}

afterEach(() => forget());

// A 21×21 QR matrix, base64, as the worker sends it.
const QR_SIZE = 21;
const qr = { size: QR_SIZE, modules: btoa(String.fromCharCode(...new Uint8Array(Math.ceil((QR_SIZE * QR_SIZE) / 8)).fill(0xa5))) };
const handoffUrl = 'https://kyc.example/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=abcdefghijklmnopqrstuv';

const dictionaries = new Map<string, Strings>();
async function words(code: string): Promise<Strings> {
  if (code === 'en') return en;
  if (!dictionaries.has(code)) dictionaries.set(code, ((await import(`../../widget/i18n/${code}.js`)) as { default: Strings }).default);
  return dictionaries.get(code)!;
}

/** Waits a frame at a time (144 renderings a test: the helpers' 50 ms polls would be most of its time); a language's dictionary loads within `ms` even on a loaded machine (WebKitGTK beside CI's worker tests once took over 5 s). */
async function frameUntil(done: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = performance.now() + ms;
  while (!done()) {
    if (performance.now() > end) throw new Error(`Timeout: ${what}`);
    await new Promise((r) => requestAnimationFrame(r));
  }
}

/** The text before a placeholder: what the widget shows of a string whatever fills it. */
const fixedPart = (s: string) => s.split('{')[0]!.trim().slice(0, 24);

interface Scenario {
  state: string;
  /** Puts a fresh element into the state. */
  reach: () => Promise<KycOnboard>;
  /** A string of the state, to know the language's words are on screen. */
  marker: (t: Strings) => string;
}

const scenarios: Scenario[] = [
  {
    state: 'handoff',
    marker: (t) => t.showNewCode,
    reach: async () => {
      mockApi({
        link: () => HttpResponse.json(linkAnswer({ url: handoffUrl, qr, session: 'ho-1', claimCode: '730514' })),
        result: () => HttpResponse.json({ checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId, phoneOpened: true }),
      });
      const el = await mount(html`<kyc-onboard sms country-code="+61"></kyc-onboard>`);
      // No poll during the sweep: the phone opening the code makes the widget replace it, which is not this test's.
      el.pollIntervals = [600_000];
      await fillValid(el);
      await check(el, 'phone');
      await submit(el);
      await waitState(el, 'handoff');
      return el;
    },
  },
  {
    state: 'sms-sent, sent again',
    marker: (t) => fixedPart(t.sentAgain),
    reach: async () => {
      mockApi({ link: () => HttpResponse.json(linkAnswer({ smsSent: true, claimCode: '730514' })) });
      const el = await mount(html`<kyc-onboard sms country-code="+61"></kyc-onboard>`);
      await fillValid(el);
      await check(el, 'sms');
      await submit(el);
      await waitState(el, 'sms-sent');
      await el.updateComplete;
      el.shadowRoot!.querySelector<HTMLButtonElement>('.actions button')!.click();
      await until(() => !!el.shadowRoot!.querySelector('#sent'), 'sent again');
      return el;
    },
  },
  {
    state: 'error, busy until',
    marker: (t) => fixedPart(t.errUnavailableUntil),
    reach: async () => {
      mockApi({ link: () => errorAnswer(503, 'VENDOR_BUSY', [], { 'Retry-After': '600' }) });
      const el = await mount(html`<kyc-onboard sms country-code="+61"></kyc-onboard>`);
      await fillValid(el);
      await submit(el);
      await waitState(el, 'error');
      return el;
    },
  },
  {
    state: 'complete',
    marker: (t) => t.completeSuccess,
    reach: async () => {
      mockApi({ result: finalAfter(0) });
      const el = await mount(html`<kyc-onboard sms country-code="+61"></kyc-onboard>`);
      el.pollIntervals = [5];
      await fillValid(el);
      await check(el, 'phone');
      await submit(el);
      await waitState(el, 'complete');
      return el;
    },
  },
];

describe('<kyc-onboard> layout of the states after the form', () => {
  for (const s of scenarios) {
    it(`${s.state}: no element is wider than the widget, in 48 languages at 280, 320 and 375 px`, async function (this: {
      timeout(ms: number): void;
    }) {
      this.timeout(240_000); // 144 renderings (WebKitGTK beside CI's worker tests is the slowest)
      const problems: string[] = [];
      for (const width of [280, 320, 375]) {
        const el = await s.reach();
        el.style.display = 'block';
        el.style.width = `${width}px`;
        for (const code of LANGUAGES) {
          const t = await words(code);
          el.lang = code;
          await frameUntil(() => (el.shadowRoot!.textContent ?? '').includes(s.marker(t)), `${code}: ${s.marker(t)}`);
          await el.updateComplete;
          const box = el.getBoundingClientRect();
          for (const node of el.shadowRoot!.querySelectorAll<HTMLElement>(
            'label, legend, input, button, p, h2, span, strong, img, svg, a',
          )) {
            const r = node.getBoundingClientRect();
            if (r.width === 0) continue;
            if (r.right > box.right + 0.5 || r.left < box.left - 0.5)
              problems.push(
                `${code} @${width}: ${node.id || node.getAttribute('part') || node.tagName} ${Math.round(Math.max(r.right - box.right, box.left - r.left))} px past`,
              );
          }
        }
        forget();
      }
      expect(problems).to.deep.equal([]);
    });
  }
});
