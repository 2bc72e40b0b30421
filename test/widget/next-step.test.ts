// The person always knows what is happening (issue 42): a QR code the phone opened is replaced by itself, and
// "Show a new code" replaces it on demand; a check that ended says why; "Send again" says when and where; a slow
// check says why and by when; offline waits say they wait; focus goes into the new panel at every state change.
// Poll waits are a few ms (mount() and each test set them): every wait is for the element's own state or text.
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import type { KycOnboard } from '../../widget/index.js';
import {
  errorAnswer,
  fillValid,
  check,
  linkAnswer,
  mockApi,
  mount,
  oneEvent,
  reachSmsSent,
  submit,
  text,
  until,
  waitState,
} from './helpers.js';

const KEY = 'kyc-onboard:session';
const startUrl = location.href;

afterEach(() => {
  fixtureCleanup();
  sessionStorage.clear();
  history.replaceState(null, '', startUrl);
  delete (navigator as { onLine?: boolean }).onLine; // the own property a test set: the browser's getter again
});

// A 21×21 matrix with a recognisable first row, base64, as the worker sends it; the second code differs in one byte.
const size = 21;
const bits = new Uint8Array(Math.ceil((size * size) / 8));
for (let x = 0; x < 7; x++) bits[x >> 3]! |= 0x80 >> (x & 7);
const qr = { size, modules: btoa(String.fromCharCode(...bits)) };
const newQr = { size, modules: btoa(String.fromCharCode(...bits.map((b, i) => (i === 0 ? 0x01 : b)))) };
const firstUrl = 'https://kyc.example/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=abcdefghijklmnopqrstuv';
const secondUrl = 'https://kyc.example/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=zyxwvutsrqponmlkjihgfe';

const button = (el: KycOnboard, label: string) =>
  [...el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent.trim() === label);
const linkShown = (el: KycOnboard) => el.shadowRoot!.querySelector<HTMLInputElement>('#handoff-link')?.value;
/** The element that has focus, if it is inside the element's shadow root, and the panel it is in. */
const focusedPanel = (el: KycOnboard) => el.shadowRoot!.activeElement?.closest('.panel') ?? null;

/** Set what `navigator.onLine` says, and tell the page as the browser would. */
function goOnline(online: boolean) {
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => online });
  dispatchEvent(new Event(online ? 'online' : 'offline'));
}

async function reachHandoff(el: KycOnboard) {
  await fillValid(el);
  await check(el, 'phone');
  await submit(el);
  await waitState(el, 'handoff');
  await el.updateComplete;
}

describe('<kyc-onboard> the QR code a phone opened', () => {
  it('is replaced by itself once the worker says the phone opened it and has not finished: a re-scan works', async () => {
    const calls = mockApi({
      link: (_call, n) =>
        HttpResponse.json(
          n === 0
            ? linkAnswer({ url: firstUrl, qr, session: 'ho-1', claimCode: '730514' })
            : linkAnswer({ url: secondUrl, qr: newQr, session: 'ho-2', claimCode: '730514' }),
        ),
      // The first link's session: opened on the phone (the phone's tab then closed); the new one: not opened yet.
      result: (call) =>
        HttpResponse.json({
          checkStatus: 'CHECKING',
          verificationId: linkAnswer().verificationId,
          ...(call.body.session === 'ho-1' ? { phoneOpened: true } : {}),
        }),
    });
    const el = await mount();
    el.pollIntervals = [5];
    await reachHandoff(el);
    await until(() => linkShown(el) === secondUrl, 'a new link shown');
    expect(calls.link[1]!.body).to.deep.equal({ session: 'ho-1', lang: 'en' }, 'the same verification, from its session');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('svg[part~="qr"] path')!.getAttribute('d')).to.equal('M11 4h1v1h-1z', 'the new QR code drawn');
    expect(text(el)).to.contain(
      'The code was opened on a phone, and each code works once: if you closed the page there, scan this new one.',
    );
    expect(text(el)).to.contain('Opened on your phone. Finish there', 'the phone may still be finishing');
    expect(el.shadowRoot!.querySelector('[part~="code"]')!.textContent.trim()).to.equal('730 514', 'the same code to enter');
    expect(JSON.parse(sessionStorage.getItem(KEY)!)).to.deep.include({ session: 'ho-2', handoff: { url: secondUrl, qr: newQr } });
    await expect(el).to.be.accessible();
    // The new code is not opened: polling goes on with its session and asks for no other.
    const polled = calls.result.length;
    await until(() => calls.result.filter((c) => c.body.session === 'ho-2').length >= 3 && calls.result.length > polled, 'polls on');
    expect(calls.link.length).to.equal(2, 'replaced once');
    expect(el.state).to.equal('handoff');
  });

  it('never ends the wait when no new code can be had: the used one stays, polling goes on, and it stops trying', async () => {
    let finished = false;
    const calls = mockApi({
      link: (_call, n) =>
        n === 0
          ? HttpResponse.json(linkAnswer({ url: firstUrl, qr, session: 'ho-1' }))
          : errorAnswer(409, 'VERIFICATION_ENDED', [
              { issue: 'belongs to a verification that can get no new link', issueLocation: 'session' },
            ]),
      result: () =>
        HttpResponse.json(
          finished
            ? { checkStatus: 'CHECKED_SUCCESS_CLEAR', verificationId: linkAnswer().verificationId, resultToken: 'h.c.s' }
            : { checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId, phoneOpened: true },
        ),
    });
    const el = await mount();
    el.pollIntervals = [5];
    await reachHandoff(el);
    await until(() => calls.link.length === 2, 'a new code asked for');
    const after = calls.result.length;
    await until(() => calls.result.length >= after + 3, 'polls on');
    expect(calls.link.length).to.equal(2, 'asked once, not at every poll');
    expect(el.state).to.equal('handoff');
    expect(linkShown(el)).to.equal(firstUrl);
    const complete = oneEvent(el, 'kyc-complete');
    finished = true;
    expect((await complete).detail.checkStatus).to.equal('CHECKED_SUCCESS_CLEAR', 'the phone that opened it finished');
  });

  it('"Show a new code" replaces the code on screen; a refusal keeps it and says why, with the time to wait', async () => {
    const retryAt = Date.now() + 15 * 60_000;
    const calls = mockApi({
      link: (_call, n) =>
        n === 0
          ? HttpResponse.json(linkAnswer({ url: firstUrl, qr, session: 'ho-1' }))
          : n === 1
            ? HttpResponse.json(linkAnswer({ url: secondUrl, qr: newQr, session: 'ho-2' }))
            : errorAnswer(429, 'RATE_LIMITED', [], { 'Retry-After': '900' }),
      result: () => HttpResponse.json({ checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId }),
    });
    const el = await mount();
    el.pollIntervals = [5];
    await reachHandoff(el);
    button(el, 'Show a new code')!.click();
    await until(() => linkShown(el) === secondUrl, 'the new link shown');
    expect(calls.link[1]!.body).to.deep.equal({ session: 'ho-1', lang: 'en' });
    await el.updateComplete;
    expect(text(el)).to.contain('This is a new code: the one before no longer works.');
    await until(() => calls.result.some((c) => c.body.session === 'ho-2'), 'polls with the new session');
    await expect(el).to.be.accessible();
    button(el, 'Show a new code')!.click();
    await until(() => text(el).includes('Too many attempts from this network'), 'the refusal said');
    const time = new Intl.DateTimeFormat('en', { timeStyle: 'short' }).format(retryAt);
    expect(text(el)).to.contain(`Please try again after ${time}.`);
    expect(el.state).to.equal('handoff', 'still waiting for the phone');
    expect(linkShown(el)).to.equal(secondUrl, 'the code on screen stays');
    const polled = calls.result.length;
    await until(() => calls.result.length >= polled + 2, 'polling goes on');
  });
});

describe('<kyc-onboard> a wait that ends says why and what to do', () => {
  const closed = (issue: string) => () => errorAnswer(409, 'VERIFICATION_CLOSED', [{ issue, issueLocation: 'session' }]);
  for (const [issue, why] of [
    ['ended: the code was not entered correctly', 'The code was entered wrongly too many times on the phone.'],
    ['ended: no outcome before its link expired', 'The time to finish it ran out.'],
  ] as const) {
    it(`a check that ended: "${why}", then start again; focus on the message`, async () => {
      mockApi({
        link: () => HttpResponse.json(linkAnswer({ url: firstUrl, qr, session: 'ho-1', claimCode: '730514' })),
        result: closed(issue),
      });
      const el = await mount();
      el.pollIntervals = [5];
      await fillValid(el);
      await check(el, 'phone');
      await submit(el);
      await waitState(el, 'error');
      await el.updateComplete;
      expect(text(el)).to.contain(`${why} This check has ended without a result. Please start again.`);
      expect(button(el, 'Start again')).to.exist;
      await until(() => el.shadowRoot!.activeElement?.id === 'alert', 'focus on the message');
      await expect(el).to.be.accessible();
    });
  }

  it('an expired text says why and what to do', async () => {
    mockApi({
      link: () => HttpResponse.json(linkAnswer({ smsSent: true, url: undefined, urlExpiry: new Date(Date.now() - 1000).toISOString() })),
      result: () => HttpResponse.json({ checkStatus: 'CHECKING' }),
    });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    el.pollIntervals = [60_000];
    await reachSmsSent(el);
    expect(text(el)).to.contain('The link has expired. Links work for a limited time: press “Send again” for a new one.');
  });
});

describe('<kyc-onboard> "Send again"', () => {
  it('says when and to which number (masked) it was sent, and focus goes there', async () => {
    mockApi({
      link: () => HttpResponse.json(linkAnswer({ smsSent: true, url: undefined, session: 'texted', claimCode: '482913' })),
      result: () => HttpResponse.json({ checkStatus: 'CHECKING' }),
    });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    el.pollIntervals = [60_000];
    await reachSmsSent(el);
    expect(el.shadowRoot!.querySelector('#sent')).to.equal(null, 'nothing sent again yet');
    const before = Date.now();
    button(el, 'Send again')!.click();
    await until(() => el.shadowRoot!.querySelector('#sent') !== null, 'the confirmation');
    const said = el.shadowRoot!.querySelector('#sent')!.textContent.replace(/\s+/g, ' ').trim();
    const times = new Set([before, Date.now()].map((t) => new Intl.DateTimeFormat('en', { timeStyle: 'short' }).format(t)));
    expect([...times].map((t) => `Sent again to +61 ••• 678 at ${t}.`)).to.include(said);
    expect(text(el)).not.to.contain('345', 'no more of the number than the masked part');
    await until(() => el.shadowRoot!.activeElement?.id === 'sent', 'focus on the confirmation');
    await expect(el).to.be.accessible();
  });
});

describe('<kyc-onboard> waiting: slow, offline', () => {
  it('a slow check says why and by when the result should be here, then completes', async () => {
    sessionStorage.setItem(KEY, JSON.stringify({ session: 'back-sess' }));
    history.replaceState(null, '', `${startUrl}${startUrl.includes('?') ? '&' : '?'}kyc_return=success&checkId=chk-1`);
    let release = false;
    mockApi({
      result: () =>
        HttpResponse.json(
          release
            ? { checkStatus: 'CHECKED_SUCCESS_CLEAR', verificationId: linkAnswer().verificationId, resultToken: 'h.c.s' }
            : { checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId },
        ),
    });
    const el = await mount();
    el.pollIntervals = [5, 5, 5, 60_000, 60_000];
    await waitState(el, 'checking');
    const start = Date.now();
    await until(() => text(el).includes('answering more slowly than usual'), 'the slow wait said');
    // By when: the polling's bound (here two minutes of waits are left).
    const by = new Intl.DateTimeFormat('en', { timeStyle: 'short' });
    const expected = new Set([by.format(start + 120_000), by.format(Date.now() + 120_000)]);
    const said = /should be here by (.+)\./.exec(text(el))?.[1];
    expect([...expected]).to.include(said);
    expect(text(el)).to.contain('The official records are answering more slowly than usual. Keep this page open');
    await expect(el).to.be.accessible();
    const complete = oneEvent(el, 'kyc-complete');
    release = true;
    el.pollIntervals = [5];
    el.remove(); // back in the page: asks again at once
    document.body.append(el);
    expect((await complete).detail.checkStatus).to.equal('CHECKED_SUCCESS_CLEAR');
  });

  it('offline while waiting for a text: says it waits for the connection; back online, it no longer does', async () => {
    mockApi({
      link: () => HttpResponse.json(linkAnswer({ smsSent: true, url: undefined, session: 'texted' })),
      result: () => HttpResponse.json({ checkStatus: 'CHECKING' }),
    });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    el.pollIntervals = [60_000];
    await reachSmsSent(el);
    const waiting = 'You are offline. This page waits for the connection to come back, then goes on by itself.';
    expect(text(el)).not.to.contain(waiting);
    goOnline(false);
    await until(() => text(el).includes(waiting), 'offline said');
    await expect(el).to.be.accessible();
    goOnline(true);
    await until(() => !text(el).includes(waiting), 'back online');
    expect(el.state).to.equal('sms-sent');
  });
});

describe('<kyc-onboard> focus after every state change', () => {
  it('walks handoff → checking → complete, sms-sent → error, redirecting, and the next attempt: focus is in the new panel each time', async () => {
    const seen: string[] = [];
    const focusIn = async (el: KycOnboard, state: string) => {
      await until(() => el.state === state && focusedPanel(el) !== null, `focus in the ${state} panel (is ${el.state})`);
      // The panel shown now: the focused element is inside the only panel of this state.
      const panel = focusedPanel(el)!;
      expect(el.shadowRoot!.contains(panel)).to.equal(true);
      seen.push(state);
    };

    // A QR code: handoff, then the phone is done (checking), then the outcome.
    let done = false;
    mockApi({
      link: () => HttpResponse.json(linkAnswer({ url: firstUrl, qr, session: 'ho-1' })),
      result: (_call, n) =>
        HttpResponse.json(
          done
            ? { checkStatus: 'CHECKED_SUCCESS_CLEAR', verificationId: linkAnswer().verificationId, resultToken: 'h.c.s' }
            : { checkStatus: 'CHECKING', verificationId: linkAnswer().verificationId, ...(n >= 2 ? { phoneReturned: true } : {}) },
        ),
    });
    let el = await mount();
    el.pollIntervals = [20];
    await fillValid(el);
    await check(el, 'phone');
    await submit(el);
    await focusIn(el, 'handoff');
    await focusIn(el, 'checking');
    done = true;
    await focusIn(el, 'complete');
    fixtureCleanup();
    sessionStorage.clear();

    // A text, then the check ends without a result (error after a wait).
    mockApi({
      link: () => HttpResponse.json(linkAnswer({ smsSent: true, url: undefined, session: 'texted' })),
      result: (_call, n) =>
        n < 1
          ? HttpResponse.json({ checkStatus: 'CHECKING' })
          : errorAnswer(409, 'VERIFICATION_CLOSED', [{ issue: 'ended: the code was not entered correctly', issueLocation: 'session' }]),
    });
    el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    el.pollIntervals = [20];
    await fillValid(el);
    await check(el, 'sms');
    await submit(el);
    await focusIn(el, 'sms-sent');
    await focusIn(el, 'error');
    fixtureCleanup();
    sessionStorage.clear();

    // This device: on the way to the hosted flow.
    mockApi();
    el = await mount();
    el.navigate = () => undefined;
    await fillValid(el);
    await submit(el);
    await focusIn(el, 'redirecting');
    fixtureCleanup();
    sessionStorage.clear();

    // Back from the hosted flow, no match: the form again, focus on what to check.
    sessionStorage.setItem(KEY, JSON.stringify({ session: 'back-sess' }));
    history.replaceState(null, '', `${startUrl}${startUrl.includes('?') ? '&' : '?'}kyc_return=success&checkId=chk-1`);
    mockApi({
      result: () =>
        HttpResponse.json({
          checkStatus: 'CHECKING',
          verificationId: linkAnswer().verificationId,
          status: 'requires_input',
          lastAttempt: { checkStatus: 'NO_MATCH' },
        }),
    });
    el = await mount();
    await until(() => el.state === 'idle' && el.shadowRoot!.activeElement?.id === 'focus', 'focus on what to check');
    seen.push('idle (next attempt)');
    expect(seen).to.deep.equal(['handoff', 'checking', 'complete', 'sms-sent', 'error', 'redirecting', 'idle (next attempt)']);
  });
});
