// The SMS path (sms-sent → polling → complete) and the return from the hosted flow (checking → complete),
// with the poll bound. Poll waits are set to 0 ms by mount(): no timing-based assertions.
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import {
  $,
  check,
  errorAnswer,
  fillValid,
  finalAfter,
  linkAnswer,
  mockApi,
  mount,
  oneEvent,
  reachSmsSent,
  submit,
  text,
  type,
  until,
  waitState,
} from './helpers.js';

const KEY = 'kyc-onboard:session';
const startUrl = location.href;

/** Pretend the hosted flow sent the browser back here. */
function comeBack(params: Record<string, string>) {
  const url = new URL(startUrl);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  history.replaceState(null, '', url.href);
}

afterEach(() => {
  fixtureCleanup();
  sessionStorage.clear();
  history.replaceState(null, '', startUrl);
});

describe('<kyc-onboard> SMS', () => {
  it('sms-sent: masked number, countdown, polls until final → complete', async () => {
    const calls = mockApi({
      // As the worker answers a texted link: a code for the phone, no hosted URL for this tab.
      link: () => HttpResponse.json(linkAnswer({ smsSent: true, session: 'sms-sess', url: undefined, claimCode: '482913' })),
      result: finalAfter(2),
    });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    el.pollIntervals = [60_000]; // hold polling after the first answer
    await fillValid(el);
    await check(el, 'sms');
    const link = oneEvent(el, 'kyc-link');
    await submit(el);
    const linkDetail = (await link).detail;
    expect(linkDetail.smsSent).to.equal(true);
    expect(linkDetail.verificationId).to.equal(linkAnswer().verificationId);
    await waitState(el, 'sms-sent');
    await el.updateComplete;
    expect(calls.link[0]!.body.sendSMS).to.equal(true);
    const t = text(el);
    expect(t).to.contain('+61 ••• 678');
    expect(t).not.to.contain('412345678');
    expect(t).to.match(/It works until .+\(\d+:\d\d\)/);
    expect(maybeButton(el, 'Send again')).to.exist;
    // The code the phone asks for at the end, and no way to the hosted flow from this tab (only back to the form).
    expect(el.shadowRoot!.querySelector('[part~="code"]')?.textContent?.trim()).to.equal('482 913');
    expect(el.shadowRoot!.querySelector('a')).to.equal(null);
    expect(linkDetail.url).to.equal('');
    expect(JSON.parse(sessionStorage.getItem(KEY)!)).to.deep.equal({
      session: 'sms-sess',
      phone: '+61 ••• 678',
      code: '482913',
      urlExpiry: linkDetail.urlExpiry,
    });
    await expect(el).to.be.accessible();
    // First poll happened (CHECKING); now let polling run fast to the final answer.
    await waitUntilCalls(() => calls.result.length >= 1);
    expect(calls.result[0]!.body).to.deep.equal({ session: 'sms-sess' });
    el.pollIntervals = [0];
    el.remove(); // reconnecting restarts polling with the new waits
    document.body.append(el);
    const complete = oneEvent(el, 'kyc-complete');
    expect((await complete).detail).to.deep.equal({
      checkStatus: 'CHECKED_SUCCESS_CLEAR',
      verificationId: linkAnswer().verificationId,
      resultToken: 'h.c.s',
      result: { outcome: 'verified', vendor: 'idv', vendorStatus: 'CHECKED_SUCCESS_CLEAR' },
      vendor: 'idv',
      mayStartAnother: false,
    });
    expect(el.state).to.equal('complete');
    expect(sessionStorage.getItem(KEY)).to.equal(null);
    el.remove();
  });

  it('"Send again" texts the same verification again (its session and the number, nothing else), with a new key, and keeps the code', async () => {
    const calls = mockApi({
      link: () => HttpResponse.json(linkAnswer({ smsSent: true, url: undefined, session: 'texted', claimCode: '482913' })),
      result: () => HttpResponse.json({ checkStatus: 'CHECKING' }),
    });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    el.pollIntervals = [60_000];
    await reachSmsSent(el);
    maybeButton(el, 'Send again')!.click();
    await waitUntilCalls(() => calls.link.length === 2);
    await waitState(el, 'sms-sent');
    expect(calls.link[1]!.body.sendSMS).to.equal(true);
    expect(calls.link[1]!.key).not.to.equal(calls.link[0]!.key);
    const again = calls.link[1]!.body as Record<string, unknown>;
    expect(again.session).to.equal('texted');
    expect(again.phone).to.deep.equal(calls.link[0]!.body.phone);
    expect(Object.keys(again).sort()).to.deep.equal(['lang', 'phone', 'sendSMS', 'session'], 'no name or date of birth again');
    expect(el.shadowRoot!.querySelector('[part~="code"]')!.textContent.replace(/\D/g, '')).to.equal('482913');
  });

  it('"Change my number" after a text: the texted link is voided on the worker, the form is back as it was, the number focused', async () => {
    const calls = mockApi({
      link: () => HttpResponse.json(linkAnswer({ smsSent: true, url: undefined, session: 'texted', claimCode: '482913' })),
      result: () => HttpResponse.json({ checkStatus: 'CHECKING' }),
    });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    el.pollIntervals = [60_000];
    await reachSmsSent(el);
    expect(buttons(el)).to.deep.equal(['Send again', 'Change my number', 'Use this device instead']);
    await expect(el).to.be.accessible();
    maybeButton(el, 'Change my number')!.click();
    await waitState(el, 'idle');
    await el.updateComplete;
    expect(calls.withdraw.map((c) => c.body)).to.deep.equal([{ session: 'texted' }]);
    expect($(el, '#familyName').value).to.equal('Citizen');
    expect($(el, '#phoneNumber').value).to.equal('0412 345 678');
    expect($(el, '#sms').checked).to.equal(true, 'still "Text me a link"');
    await until(() => el.shadowRoot!.activeElement?.id === 'phoneNumber', 'the number has focus');
    expect(sessionStorage.getItem(KEY)).to.equal(null);
    // A new number, a new text.
    await type(el, 'phoneNumber', '0412 345 679');
    await submit(el);
    await waitState(el, 'sms-sent');
    expect(calls.link.at(-1)!.body.phone.number).to.equal('412345679');
  });

  it('"Use this device instead" from the QR code: voided on the worker, the form as it was, "Continue on this device" chosen', async () => {
    const calls = mockApi({
      link: () => HttpResponse.json(linkAnswer({ url: 'https://kyc.example/handoff/x?t=y', qr, session: 'qr-sess', claimCode: '123456' })),
      result: () => HttpResponse.json({ checkStatus: 'CHECKING' }),
    });
    const el = await mount();
    el.pollIntervals = [60_000];
    await fillValid(el);
    await check(el, 'phone');
    await submit(el);
    await waitState(el, 'handoff');
    await el.updateComplete;
    maybeButton(el, 'Use this device instead')!.click();
    await waitState(el, 'idle');
    await el.updateComplete;
    expect(calls.withdraw.map((c) => c.body)).to.deep.equal([{ session: 'qr-sess' }]);
    expect($(el, '#here').checked).to.equal(true);
    expect($(el, '#familyName').value).to.equal('Citizen');
    await until(() => el.shadowRoot!.activeElement?.getAttribute('type') === 'submit', 'the submit button has focus');
  });

  it('a reload while the text is out resumes sms-sent with the same controls; a finish on the phone meanwhile is the outcome', async () => {
    sessionStorage.setItem(
      KEY,
      JSON.stringify({ session: 'texted', phone: '+61 ••• 678', code: '482913', urlExpiry: new Date(Date.now() + 600_000).toISOString() }),
    );
    const calls = mockApi({
      result: () => HttpResponse.json({ checkStatus: 'CHECKING' }),
      withdraw: () => HttpResponse.json({ verificationId: linkAnswer().verificationId, status: 'final' }),
    });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    el.pollIntervals = [60_000];
    await waitState(el, 'sms-sent');
    await el.updateComplete;
    expect(buttons(el)).to.deep.equal(['Send again', 'Change my number', 'Use this device instead']);
    mockApi({
      result: finalAfter(0),
      withdraw: () => HttpResponse.json({ verificationId: linkAnswer().verificationId, status: 'final' }),
    });
    expect(calls.withdraw).to.deep.equal([]);
    maybeButton(el, 'Use this device instead')!.click();
    await waitState(el, 'complete');
  });

  it('"Send again" refused with 429: says when to try again, stays in sms-sent, and still reaches complete', async () => {
    const calls = mockApi({
      link: (_c, n) =>
        n === 0
          ? HttpResponse.json(linkAnswer({ smsSent: true, session: 'first-sess', url: undefined, claimCode: '482913' }))
          : errorAnswer(429, 'RATE_LIMITED', [], { 'Retry-After': '42' }),
      result: finalAfter(3),
    });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    el.pollIntervals = [60_000];
    await reachSmsSent(el);
    const error = oneEvent(el, 'kyc-error');
    maybeButton(el, 'Send again')!.click();
    expect((await error).detail).to.deep.include({ errorCode: 'RATE_LIMITED', retryable: true, status: 429 });
    await waitState(el, 'sms-sent');
    await el.updateComplete;
    const alert = el.shadowRoot!.querySelector('[role=alert]');
    expect(alert?.textContent).to.contain('Try again in 42 seconds;');
    expect(el.shadowRoot!.querySelector('[part~="code"]')?.textContent?.trim()).to.equal('482 913', 'the code of the text already out');
    await expect(el).to.be.accessible();
    // The text already out still counts: polling goes on with the first session.
    el.pollIntervals = [0];
    el.remove();
    document.body.append(el);
    const complete = oneEvent(el, 'kyc-complete');
    expect((await complete).detail.checkStatus).to.equal('CHECKED_SUCCESS_CLEAR');
    expect(calls.result.at(-1)!.body.session).to.equal('first-sess', 'the outcome came through the first text’s session');
    el.remove();
  });

  it('an expired link says so and still offers every way on', async () => {
    mockApi({
      link: () => HttpResponse.json(linkAnswer({ smsSent: true, urlExpiry: new Date(Date.now() - 1000).toISOString() })),
      result: () => HttpResponse.json({ checkStatus: 'CHECKING' }),
    });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    el.pollIntervals = [60_000];
    await reachSmsSent(el);
    expect(text(el)).to.contain('The link has expired.');
    expect(buttons(el)).to.deep.equal(['Send again', 'Change my number', 'Use this device instead']);
  });

  it('a link on this device keeps the answer’s returnKeys with the session; only those come back, as the hint', async () => {
    mockApi({ link: () => HttpResponse.json(linkAnswer({ session: 'ref-sess', returnKeys: ['ref'] })) });
    const el = await mount();
    el.navigate = () => undefined;
    await fillValid(el);
    await submit(el);
    await waitState(el, 'redirecting');
    expect(JSON.parse(sessionStorage.getItem(KEY)!)).to.deep.include({ session: 'ref-sess', returnKeys: ['ref'] });
    el.remove();
    // Back from the hosted flow: the vendor's `ref` is the hint and leaves the address bar; the page's own `id` stays.
    comeBack({ kyc_return: 'success', ref: 'r-1', id: 'page-own' });
    const calls = mockApi({ result: () => HttpResponse.json({ checkStatus: 'CHECKED_SUCCESS_CLEAR' }) });
    const again = await mount();
    await waitState(again, 'complete');
    // The returned page's own requests (a request of an element removed earlier may still land here: not counted).
    const back = calls.result.filter((c) => c.body.session === 'ref-sess' && c.body.returned);
    expect(back.length).to.be.greaterThan(0);
    for (const c of back) expect(c.body).to.deep.equal({ session: 'ref-sess', hint: { ref: 'r-1' }, returned: 'success' });
    const url = new URL(location.href);
    expect(url.searchParams.has('ref')).to.equal(false);
    expect(url.searchParams.get('id')).to.equal('page-own');
  });

  it('smsSent false although SMS was asked for: continues on this device', async () => {
    mockApi({ link: () => HttpResponse.json(linkAnswer({ smsSent: false })) });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    const navigated: string[] = [];
    el.navigate = (url) => navigated.push(url);
    await fillValid(el);
    await check(el, 'sms');
    await submit(el);
    await waitState(el, 'redirecting');
    expect(navigated.length).to.equal(1);
  });
});

describe('<kyc-onboard> return from the hosted flow', () => {
  it('checking → polls while CHECKING → complete; sends session and the return keys as the hint; cleans the address bar', async () => {
    // The link answer's `returnKeys` (idv's two), kept with the session when the widget left for the hosted flow.
    sessionStorage.setItem(KEY, JSON.stringify({ session: 'back-sess', returnKeys: ['checkId', 'token'] }));
    comeBack({ kyc_return: 'success', checkId: 'chk-1', token: 'tok-1', keep: 'me' });
    let release!: () => void;
    const firstAnswer = new Promise<void>((r) => (release = r));
    let own = 0;
    const calls = mockApi({
      result: async (c) => {
        if (c.body.session !== 'back-sess') return HttpResponse.json({ checkStatus: 'CHECKING' });
        const n = own++;
        if (n === 0) await firstAnswer;
        return HttpResponse.json({ checkStatus: n < 2 ? 'CHECKING' : 'CHECKED_SUCCESS_WITH_NOTES' });
      },
    });
    const events: string[] = [];
    document.addEventListener('kyc-complete', (e) => events.push(e.detail.checkStatus));
    const el = await mount();
    await waitState(el, 'checking');
    expect(el.matches(':state(checking)')).to.equal(true);
    expect(text(el)).to.contain('Checking your result');
    await expect(el).to.be.accessible();
    const url = new URL(location.href);
    expect(url.searchParams.has('kyc_return')).to.equal(false);
    expect(url.searchParams.has('checkId')).to.equal(false);
    expect(url.searchParams.has('token')).to.equal(false);
    expect(url.searchParams.get('keep')).to.equal('me');
    const complete = oneEvent(el, 'kyc-complete');
    release();
    expect((await complete).detail.checkStatus).to.equal('CHECKED_SUCCESS_WITH_NOTES');
    // (A request the previous test's element had in flight when it was removed may land here: count this session's.)
    const mine = calls.result.filter((c) => c.body.session === 'back-sess');
    expect(mine.length).to.equal(3);
    for (const c of mine) {
      expect(c.body).to.deep.equal({ session: 'back-sess', hint: { checkId: 'chk-1', token: 'tok-1' }, returned: 'success' });
    }
    expect(el.state).to.equal('complete');
    await el.updateComplete;
    expect(text(el)).to.contain('you’re verified');
    expect(sessionStorage.getItem(KEY)).to.equal(null);
    expect(events).to.deep.equal(['CHECKED_SUCCESS_WITH_NOTES']);
    await expect(el).to.be.accessible();
  });

  it('CHECKED_FAILED is complete, with a neutral message (never "you failed")', async () => {
    sessionStorage.setItem(KEY, JSON.stringify({ session: 's' }));
    comeBack({ kyc_return: 'success', checkId: 'c' });
    mockApi({ result: () => HttpResponse.json({ checkStatus: 'CHECKED_FAILED' }) });
    const el = await mount();
    const complete = oneEvent(el, 'kyc-complete');
    expect((await complete).detail.checkStatus).to.equal('CHECKED_FAILED');
    await el.updateComplete;
    expect(el.state).to.equal('complete');
    expect(text(el).toLowerCase()).to.contain('we could not verify you online');
    expect(text(el).toLowerCase()).not.to.contain('fail');
    expect(el.checkStatus).to.equal('CHECKED_FAILED');
  });

  it('a return through the error URL is complete too (whatever final status the result gives)', async () => {
    sessionStorage.setItem(KEY, JSON.stringify({ session: 's' }));
    comeBack({ kyc_return: 'error' });
    const calls = mockApi({ result: () => HttpResponse.json({ checkStatus: 'UNPROCESSABLE' }) });
    const el = await mount();
    const complete = oneEvent(el, 'kyc-complete');
    expect((await complete).detail.checkStatus).to.equal('UNPROCESSABLE');
    expect(calls.result[0]!.body).to.deep.equal({ session: 's', returned: 'error' });
    expect(el.state).to.equal('complete');
  });

  it('stops at the poll bound: RESULT_PENDING, retryable; "Try again" polls again', async () => {
    sessionStorage.setItem(KEY, JSON.stringify({ session: 's' }));
    comeBack({ kyc_return: 'success', checkId: 'c' });
    const calls = mockApi({ result: () => HttpResponse.json({ checkStatus: 'CHECKING' }) });
    const el = await mount();
    el.pollIntervals = [0, 0, 0]; // one call, then one after each wait: 4 calls
    const error = oneEvent(el, 'kyc-error');
    expect((await error).detail).to.deep.equal({ errorCode: 'RESULT_PENDING', requestId: '', retryable: true, status: 0 });
    expect(calls.result.length).to.equal(4);
    expect(el.state).to.equal('error');
    await el.updateComplete;
    expect(text(el)).to.contain('isn’t ready yet');
    await expect(el).to.be.accessible();
    // The session is kept for the retry.
    expect(sessionStorage.getItem(KEY)).not.to.equal(null);
    mockApi({ result: () => HttpResponse.json({ checkStatus: 'NO_MATCH' }) });
    const complete = oneEvent(el, 'kyc-complete');
    maybeButton(el, 'Try again')!.click();
    expect((await complete).detail.checkStatus).to.equal('NO_MATCH');
  });

  it('401 on the result: session expired, "Start again" goes back to the form', async () => {
    sessionStorage.setItem(KEY, JSON.stringify({ session: 'old' }));
    comeBack({ kyc_return: 'success' });
    mockApi({ result: () => errorAnswer(401, 'SESSION_INVALID') });
    const el = await mount();
    const error = oneEvent(el, 'kyc-error');
    expect((await error).detail).to.deep.include({ errorCode: 'SESSION_INVALID', retryable: false, status: 401 });
    await el.updateComplete;
    expect(text(el)).to.contain('session has expired');
    maybeButton(el, 'Start again')!.click();
    await waitState(el, 'idle');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('form')).to.exist;
    expect(sessionStorage.getItem(KEY)).to.equal(null);
  });

  it('after "Start again", a new SMS link is polled without the old return parameters', async () => {
    sessionStorage.setItem(KEY, JSON.stringify({ session: 'old' }));
    comeBack({ kyc_return: 'success', checkId: 'old-check', token: 'old-token' });
    mockApi({ result: () => errorAnswer(401, 'SESSION_INVALID') });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    await waitState(el, 'error');
    await el.updateComplete;
    maybeButton(el, 'Start again')!.click();
    await waitState(el, 'idle');
    const calls = mockApi({
      link: () => HttpResponse.json(linkAnswer({ smsSent: true, session: 'new' })),
      result: () => HttpResponse.json({ checkStatus: 'CHECKED_SUCCESS_CLEAR' }),
    });
    await el.updateComplete;
    await fillValid(el);
    await check(el, 'sms');
    const complete = oneEvent(el, 'kyc-complete');
    await submit(el);
    await complete;
    expect(calls.result[0]!.body).to.deep.equal({ session: 'new' });
  });

  it('a return without the session (a new tab, another device) calmly says to finish where they started: not an error', async () => {
    comeBack({ kyc_return: 'success', checkId: 'c' });
    const calls = mockApi();
    let errors = 0;
    document.addEventListener('kyc-error', () => errors++);
    const el = await mount();
    await waitUntilCalls(() => text(el).includes('You can close this page and go back to where you started'));
    expect(el.state).to.equal('idle');
    expect(errors).to.equal(0);
    expect(el.shadowRoot!.querySelector('[role=alert]')).to.equal(null);
    expect(el.shadowRoot!.activeElement?.textContent).to.contain('You can close this page');
    expect(calls.result.length).to.equal(0);
    expect(new URL(location.href).searchParams.has('kyc_return')).to.equal(false);
    await expect(el).to.be.accessible();
  });

  it('ignores unrelated query parameters', async () => {
    comeBack({ kyc_return: 'maybe', checkId: 'c' });
    const calls = mockApi();
    // The form's start, not a return's: the widget.shown beacon goes (it never does on a return).
    const shown = new Promise<void>((resolve) =>
      Object.defineProperty(navigator, 'sendBeacon', { configurable: true, value: () => (resolve(), true) }),
    );
    const el = await mount();
    await shown;
    delete (navigator as unknown as Record<string, unknown>).sendBeacon;
    expect(el.state).to.equal('idle');
    expect(calls.result.length).to.equal(0);
  });
});

const buttons = (el: HTMLElement) => [...el.shadowRoot!.querySelectorAll('button')].map((b) => b.textContent?.trim());
/** A QR code's data as the worker sends it (its look does not matter here). */
const qr = { size: 21, modules: btoa('\0'.repeat(56)) };

function maybeButton(el: HTMLElement, name: string): HTMLButtonElement | undefined {
  return [...el.shadowRoot!.querySelectorAll('button')].find((b) => b.textContent?.trim() === name);
}

async function waitUntilCalls(fn: () => boolean) {
  await until(fn, 'the calls');
  expect(fn()).to.equal(true);
}

describe('<kyc-onboard> Continue on my phone', () => {
  // A 21×21 matrix with a recognisable first row (finder pattern's top edge: 7 dark), base64, as the worker sends it.
  const size = 21;
  const bits = new Uint8Array(Math.ceil((size * size) / 8));
  for (let x = 0; x < 7; x++) bits[x >> 3]! |= 0x80 >> (x & 7);
  const qr = { size, modules: btoa(String.fromCharCode(...bits)) };
  const handoffUrl = 'https://kyc.example/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=abcdefghijklmnopqrstuv';

  it('offered without `sms`; handoff: a QR code with an accessible name, the link as text, Copy link, the code; polls → complete', async () => {
    const calls = mockApi({
      link: () => HttpResponse.json(linkAnswer({ url: handoffUrl, qr, session: 'ho-sess', claimCode: '730514' })),
      result: finalAfter(2, (n) => (n === 1 ? { phoneOpened: true } : {})),
    });
    const el = await mount();
    const navigated: string[] = [];
    el.navigate = (u) => navigated.push(u);
    el.pollIntervals = [60_000];
    expect(el.shadowRoot!.querySelector('#sms')).to.equal(null, 'no "Text me a link" without `sms`');
    await fillValid(el);
    await check(el, 'phone');
    const submitted = oneEvent(el, 'kyc-submit');
    await submit(el);
    expect((await submitted).detail).to.deep.equal({ sendSMS: false, handoff: true });
    await waitState(el, 'handoff');
    await el.updateComplete;
    expect(calls.link[0]!.body.handoff).to.equal(true);
    expect(calls.link[0]!.body.lang).to.equal('en', 'the phone pages speak the widget’s language');
    expect(calls.link[0]!.body).not.to.have.property('sendSMS');
    expect(navigated).to.deep.equal([], 'this tab stays: the link is for the phone');
    const svg = el.shadowRoot!.querySelector('svg[part~="qr"]')!;
    expect(svg.getAttribute('role')).to.equal('img');
    expect(svg.getAttribute('aria-label')).to.equal('QR code of the link for your phone');
    expect(svg.getAttribute('viewBox')).to.equal('0 0 29 29', 'a quiet zone of four modules each side');
    expect(svg.querySelector('path')!.getAttribute('d')).to.equal(
      'M4 4h1v1h-1zM5 4h1v1h-1zM6 4h1v1h-1zM7 4h1v1h-1zM8 4h1v1h-1zM9 4h1v1h-1zM10 4h1v1h-1z',
    );
    const input = el.shadowRoot!.querySelector<HTMLInputElement>('#handoff-link')!;
    expect(input.value).to.equal(handoffUrl);
    const copyButton = [...el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent.includes('Copy link'))!;
    expect(input.getBoundingClientRect().width, 'the link gets the room, the button its own width').to.be.greaterThan(
      copyButton.getBoundingClientRect().width,
    );
    expect(el.shadowRoot!.querySelector(`label[for=handoff-link]`)!.textContent).to.contain('Or open this link on your phone');
    expect(text(el)).to.contain('Keep this page open');
    // The code beside the QR code: a forwarded link credits nobody without it.
    expect(text(el)).to.contain('At the end, your phone asks for this code. Never give it to anyone:');
    expect(el.shadowRoot!.querySelector('[part~="code"]')!.textContent.trim()).to.equal('730 514');
    await expect(el).to.be.accessible();
    expect(JSON.parse(sessionStorage.getItem(KEY)!)).to.deep.include({
      session: 'ho-sess',
      handoff: { url: handoffUrl, qr },
      code: '730514',
    });
    // Copy link: to the clipboard where the browser allows it, else the link is selected for the person to copy.
    [...el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent.includes('Copy link'))!.click();
    const said = () => text(el).includes('Link copied.');
    const selected = () => input.selectionStart === 0 && input.selectionEnd === handoffUrl.length;
    await until(() => said() || selected(), 'copied (and said so), or selected');
    // It keeps polling: says when the phone opened the link (the second answer)...
    el.remove(); // reconnecting polls at once, then holds for the long wait
    document.body.append(el);
    await until(() => text(el).includes('Opened on your phone.'), 'the phone opened the link');
    // ...and reaches the outcome by itself.
    el.pollIntervals = [0];
    el.remove();
    document.body.append(el);
    const complete = oneEvent(el, 'kyc-complete');
    expect((await complete).detail.checkStatus).to.equal('CHECKED_SUCCESS_CLEAR');
    el.remove();
  });

  it('stops waiting for the phone once it is done (phoneReturned): checking, then complete', async () => {
    let release = false;
    const calls = mockApi({
      link: () => HttpResponse.json(linkAnswer({ url: handoffUrl, qr, session: 'ho-sess' })),
      result: (_call, n) =>
        HttpResponse.json(
          release
            ? { checkStatus: 'CHECKED_SUCCESS_CLEAR', verificationId: linkAnswer().verificationId, resultToken: 'h.c.s' }
            : {
                checkStatus: 'CHECKING',
                verificationId: linkAnswer().verificationId,
                ...(n >= 1 ? { phoneOpened: true, phoneReturned: true } : {}),
              },
        ),
    });
    const el = await mount();
    el.pollIntervals = [10];
    // Every state it left (records carry the old value; several may come in one callback).
    const left: (string | null)[] = [];
    new MutationObserver((records) => left.push(...records.map((r) => r.oldValue))).observe(el, {
      attributeFilter: ['state'],
      attributeOldValue: true,
    });
    await fillValid(el);
    await check(el, 'phone');
    await submit(el);
    await waitState(el, 'checking', 'the phone is done: checking');
    expect(left.slice(-2)).to.deep.equal(['submitting', 'handoff'], 'from the handoff view');
    await el.updateComplete;
    expect(text(el)).to.contain('Checking your result');
    await expect(el).to.be.accessible();
    // Taken out of the page and put back, it still waits as long as the link allows (not the short `checking` bound).
    el.remove();
    document.body.append(el);
    const polled = calls.result.length;
    await until(() => calls.result.length >= polled + 5, 'polls on');
    expect(el.state).to.equal('checking');
    const complete = oneEvent(el, 'kyc-complete');
    release = true;
    expect((await complete).detail.checkStatus).to.equal('CHECKED_SUCCESS_CLEAR');
    el.remove();
  });

  const newUrl = 'https://kyc.example/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=zyxwvutsrqponmlkjihgfe';
  const newQr = { size, modules: btoa(String.fromCharCode(...bits.map((b, i) => (i === 0 ? 0x01 : b)))) };

  it('replaces an expired link without asking: the same verification, a new QR code and link, and goes on to complete', async () => {
    let finished = false;
    const calls = mockApi({
      // The first link has already expired (the worker's clock is the test's); the second is new.
      link: (_call, n) =>
        HttpResponse.json(
          n === 0
            ? linkAnswer({ url: handoffUrl, qr, session: 'ho-sess', urlExpiry: new Date(Date.now() - 1000).toISOString() })
            : linkAnswer({ url: newUrl, qr: newQr, session: 'ho-sess-2' }),
        ),
      result: (call) =>
        HttpResponse.json(
          finished && call.body.session === 'ho-sess-2'
            ? { checkStatus: 'CHECKED_SUCCESS_CLEAR', verificationId: linkAnswer().verificationId, resultToken: 'h.c.s' }
            : { checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId },
        ),
    });
    const el = await mount(html`<kyc-onboard lang="fr"></kyc-onboard>`);
    el.pollIntervals = [10];
    const links: { url: string; verificationId: string }[] = [];
    el.addEventListener('kyc-link', (e) => links.push(e.detail));
    await fillValid(el);
    await check(el, 'phone');
    await submit(el);
    await waitState(el, 'handoff');
    await until(() => calls.link.length === 2, 'a new link asked for');
    expect(calls.link[1]!.body).to.deep.equal({ session: 'ho-sess', lang: 'fr' }, 'the session instead of the details; never sendSMS');
    await until(() => el.shadowRoot!.querySelector<HTMLInputElement>('#handoff-link')?.value === newUrl, 'the new link shown');
    await el.updateComplete;
    expect(el.state).to.equal('handoff');
    expect(el.shadowRoot!.querySelector('svg[part~="qr"] path')!.getAttribute('d')).to.equal('M11 4h1v1h-1z', 'the new QR code drawn');
    await until(() => text(el).includes('Le lien avait expiré : en voici un nouveau.'), 'said, in the widget’s language');
    expect(JSON.parse(sessionStorage.getItem(KEY)!)).to.deep.include({ session: 'ho-sess-2', handoff: { url: newUrl, qr: newQr } });
    expect(links.map((l) => l.url)).to.deep.equal([handoffUrl, newUrl]);
    expect(links[1]!.verificationId).to.equal(links[0]!.verificationId);
    await expect(el).to.be.accessible();
    await until(() => calls.result.some((c) => c.body.session === 'ho-sess-2'), 'polls with the new session');
    expect(calls.link.length).to.equal(2, 'renewed once: the new link has not expired');
    const complete = oneEvent(el, 'kyc-complete');
    finished = true;
    expect((await complete).detail.resultToken).to.equal('h.c.s');
    el.remove();
  });

  it('counts a link’s lifetime on the worker’s clock: a browser clock two hours ahead neither renews it nor ends it', async () => {
    const server = Date.now() - 2 * 3600_000; // the worker's clock, as its Date header says
    let answeredAt = 0; // this browser's clock when the worker answered
    const calls = mockApi({
      link: () => {
        answeredAt = Date.now();
        return HttpResponse.json(
          linkAnswer({ url: handoffUrl, qr, session: 'ho-sess', urlExpiry: new Date(server + 10 * 60_000).toISOString() }),
          {
            headers: { Date: new Date(server).toUTCString() },
          },
        );
      },
    });
    const el = await mount();
    el.pollIntervals = [10];
    await fillValid(el);
    await check(el, 'phone');
    await submit(el);
    await waitState(el, 'handoff');
    await until(() => calls.result.length >= 5, 'polled a few times');
    expect(calls.link.length).to.equal(1, 'not renewed: ten minutes are left');
    const stored = Date.parse(JSON.parse(sessionStorage.getItem(KEY)!).urlExpiry);
    // Ten minutes from the answer on this clock (not from now: polling on a busy machine takes seconds).
    expect(Math.abs(stored - (answeredAt + 10 * 60_000))).to.be.lessThan(5_000, 'ten minutes from the answer on this clock');
    el.remove();
  });

  it('a verification that ended without an outcome (the code was never entered) stops polling: a calm error, Start again', async () => {
    const calls = mockApi({
      link: () => HttpResponse.json(linkAnswer({ url: handoffUrl, qr, session: 'ho-sess', claimCode: '730514' })),
      result: () =>
        errorAnswer(409, 'VERIFICATION_CLOSED', [{ issue: 'ended: the code was not entered correctly', issueLocation: 'session' }]),
    });
    const el = await mount();
    el.pollIntervals = [10];
    await fillValid(el);
    await check(el, 'phone');
    const failed = oneEvent(el, 'kyc-error');
    await submit(el);
    expect((await failed).detail.errorCode).to.equal('VERIFICATION_CLOSED');
    await waitState(el, 'error');
    await el.updateComplete;
    expect(text(el)).to.contain('This check has ended without a result. Please start again.');
    const polls = calls.result.length;
    // Proving a timer does NOT fire has no event to wait for: ten poll intervals (10 ms each) of nothing.
    await new Promise((r) => setTimeout(r, 100));
    expect(calls.result.length).to.equal(polls, 'no more polling');
    el.remove();
  });

  it('a link that can no longer be renewed says so and offers Start again', async () => {
    mockApi({
      link: (_call, n) =>
        n === 0
          ? HttpResponse.json(linkAnswer({ url: handoffUrl, qr, session: 'ho-sess', urlExpiry: new Date(Date.now() - 1000).toISOString() }))
          : errorAnswer(409, 'VERIFICATION_ENDED', [{ issue: 'belongs to a verification that has ended', issueLocation: 'session' }]),
    });
    const el = await mount();
    el.pollIntervals = [10];
    await fillValid(el);
    await check(el, 'phone');
    await submit(el);
    const failed = oneEvent(el, 'kyc-error');
    expect((await failed).detail.errorCode).to.equal('VERIFICATION_ENDED');
    await waitState(el, 'error');
    await el.updateComplete;
    expect(text(el)).to.contain('Your session has expired. Please start again.');
    const start = [...el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent.includes('Start again'))!;
    expect(start).to.exist;
    await expect(el).to.be.accessible();
    start.click();
    await waitState(el, 'idle');
    el.remove();
  });
});
