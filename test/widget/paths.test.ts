// The paths a person or an integrator hits beyond the happy one (each case numbered):
// a refused return URL, a refused country code, a number that cannot be texted, the layout between blur and
// click, the country code box, the outcome's accent and focus, Back, a popup, the default return URL, and a
// page that changes its language. (Case 1, a refused origin, needs two origins: test/e2e/cross-origin.)
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { sendKeys, sendMouse } from '@web/test-runner-commands';
import { HttpResponse } from 'msw';
import {
  $,
  errorAnswer,
  fillValid,
  labelIs,
  linkAnswer,
  mockApi,
  mount,
  oneEvent,
  submit,
  text,
  type,
  until,
  waitState,
} from './helpers.js';
import type { KycOnboard } from '../../widget/index.js';

const KEY = 'kyc-onboard:session';
const startUrl = location.href;
const done = { verificationId: linkAnswer().verificationId, resultToken: 'header.claims.signature' };

afterEach(() => {
  fixtureCleanup();
  sessionStorage.clear();
  history.replaceState(null, '', startUrl);
  document.documentElement.lang = '';
});

const alertText = (el: KycOnboard) => el.shadowRoot!.querySelector('[role=alert]')?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const buttons = (el: KycOnboard) => [...el.shadowRoot!.querySelectorAll('button')].map((b) => b.textContent.trim());

/** Capture console.error while `fn` runs. */
async function consoleErrors(fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void seen.push(args.map(String).join(' '));
  try {
    await fn();
  } finally {
    console.error = original;
  }
  return seen;
}

describe('<kyc-onboard> paths', () => {
  it('1. a 403 ORIGIN_NOT_ALLOWED: "contact the site", not retryable, no "Try again", the fix in the console', async () => {
    mockApi({ link: () => errorAnswer(403, 'ORIGIN_NOT_ALLOWED') });
    const el = await mount();
    await fillValid(el);
    const logged = await consoleErrors(async () => {
      const error = oneEvent(el, 'kyc-error');
      await submit(el);
      expect((await error).detail).to.deep.equal({ errorCode: 'ORIGIN_NOT_ALLOWED', requestId: 'req-403', retryable: false, status: 403 });
    });
    await el.updateComplete;
    expect(alertText(el)).to.equal('Verification can’t start on this page. Please contact the site.');
    expect(alertText(el)).not.to.match(/connect/i);
    expect(buttons(el)).not.to.include('Try again');
    expect(logged.join('\n')).to.contain('ALLOWED_ORIGINS').and.to.contain(location.origin);
  });

  it('2. a return-url the worker refuses: "contact the site" (nothing is marked for the person to fix), and the console names returnUrl', async () => {
    mockApi({
      link: () => errorAnswer(400, 'VALIDATION_FAILED', [{ issue: 'must be a page on an allowed origin', issueLocation: 'returnUrl' }]),
    });
    const el = await mount(html`<kyc-onboard return-url="https://elsewhere.example/back"></kyc-onboard>`);
    await fillValid(el);
    const logged = await consoleErrors(async () => {
      const error = oneEvent(el, 'kyc-error');
      await submit(el);
      expect((await error).detail).to.deep.include({ errorCode: 'VALIDATION_FAILED', retryable: false, status: 400 });
    });
    await el.updateComplete;
    expect(alertText(el)).to.equal('Verification can’t start on this page. Please contact the site.');
    expect(alertText(el)).not.to.contain('marked fields');
    expect(el.shadowRoot!.querySelectorAll('[aria-invalid=true]').length).to.equal(0);
    expect(logged.join('\n')).to.contain('returnUrl must be a page on an allowed origin');
    await expect(el).to.be.accessible();
  });

  it('3. a country code the worker refuses (+999): the Country code field is marked, nothing else', async () => {
    mockApi({
      link: () => errorAnswer(400, 'VALIDATION_FAILED', [{ issue: 'is not a country calling code', issueLocation: 'phone.code' }]),
    });
    const el = await mount();
    await fillValid(el);
    await type(el, 'phoneCode', '+999');
    const error = oneEvent(el, 'kyc-error');
    await submit(el);
    await error;
    await el.updateComplete;
    expect([...el.shadowRoot!.querySelectorAll('[aria-invalid=true]')].map((i) => i.id)).to.deep.equal(['phoneCode']);
    expect($(el, '#phoneCode-error').textContent).to.equal('Enter a code such as +61.');
    expect(alertText(el)).to.contain('Please check the marked fields.');
    expect(el.shadowRoot!.activeElement?.id).to.equal('phoneCode');
  });

  it('4. SMS_NOT_ALLOWED: "we can’t text this number", the number is not marked wrong, "Continue on this device" goes on without SMS', async () => {
    const calls = mockApi({
      link: (call) =>
        call.body.sendSMS
          ? errorAnswer(400, 'SMS_NOT_ALLOWED', [
              { issue: 'cannot receive a text message from this service', issueLocation: 'phone.number' },
            ])
          : HttpResponse.json(linkAnswer()),
    });
    // The page offers texting to France; this worker's SMS_ALLOWED_COUNTRIES does not include it.
    const el = await mount(html`<kyc-onboard sms sms-countries="AU FR"></kyc-onboard>`);
    const navigated: string[] = [];
    el.navigate = (url) => navigated.push(url);
    await fillValid(el, { phoneNumber: '06 12 34 56 78' });
    await type(el, 'phoneCode', '+33');
    $(el, '#sms').click();
    await el.updateComplete;
    const error = oneEvent(el, 'kyc-error');
    await submit(el);
    expect((await error).detail).to.deep.include({ errorCode: 'SMS_NOT_ALLOWED', retryable: false, status: 400 });
    await el.updateComplete;
    expect(alertText(el)).to.contain('We can’t text this number. You can continue on this device.');
    expect(alertText(el)).not.to.contain('valid mobile number');
    expect($(el, '#phoneNumber').hasAttribute('aria-invalid')).to.equal(false);
    await expect(el).to.be.accessible();
    const go = [...el.shadowRoot!.querySelectorAll<HTMLButtonElement>('[role=alert] button')].find(
      (b) => b.textContent === 'Continue on this device',
    )!;
    expect(go).to.exist;
    go.click();
    await waitState(el, 'redirecting');
    expect(calls.link.length).to.equal(2);
    expect(calls.link[1]!.body).not.to.have.property('sendSMS');
    expect(calls.link[1]!.body.phone).to.deep.equal(calls.link[0]!.body.phone);
    expect(navigated).to.deep.equal([linkAnswer().url]);
  });

  it('5. the layout does not move between leaving a wrong field and the next click: the click lands', async () => {
    mockApi();
    const el = await mount();
    const consent = $(el, '#consent');
    const family = $(el, '#familyName');
    consent.scrollIntoView({ block: 'center' }); // below the fold of the test window since the form offers "Continue on my phone"
    family.focus({ preventScroll: true });
    await sendKeys({ type: ' ' }); // a family name of a space: wrong
    const before = consent.getBoundingClientRect();
    // A real click: the mouse goes down on the checkbox where it was while the field still had focus.
    const x = Math.round(before.left + before.width / 2);
    const y = Math.round(before.top + before.height / 2);
    await sendMouse({ type: 'click', position: [x, y] });
    await el.updateComplete;
    expect(consent.getBoundingClientRect().top).to.equal(before.top);
    expect(consent.checked, 'the click landed on the checkbox').to.equal(true);
    await sendMouse({ type: 'move', position: [0, 0] });
  });

  it('6. the Country code box keeps its height when Mobile number shows an error', async () => {
    mockApi();
    const el = await mount();
    const code = $(el, '#phoneCode');
    const height = code.getBoundingClientRect().height;
    await fillValid(el, { phoneNumber: '12' });
    await submit(el);
    expect($(el, '#phoneNumber').getAttribute('aria-invalid')).to.equal('true');
    expect($(el, '#phoneNumber-error').getBoundingClientRect().height).to.be.greaterThan(10);
    expect(code.getBoundingClientRect().height).to.equal(height);
  });

  it('7 and 8. after a return: focus on the outcome heading; a failed or partial outcome is not green, a clear success is', async () => {
    const accent = async (checkStatus: string) => {
      sessionStorage.setItem(KEY, JSON.stringify({ session: 's' }));
      history.replaceState(null, '', `${startUrl}&kyc_return=success&checkId=c`);
      mockApi({ result: () => HttpResponse.json({ checkStatus, ...done }) });
      const el = await mount();
      await waitState(el, 'complete');
      await el.updateComplete;
      const heading = el.shadowRoot!.querySelector('h2')!;
      await until(() => el.shadowRoot!.activeElement === heading, 'focus on the outcome heading');
      expect(document.activeElement).to.equal(el);
      expect(heading.textContent).to.equal(
        checkStatus.startsWith('CHECKED_SUCCESS') ? 'Thanks, you’re verified.' : 'We could not verify you online. Thank you for your time.',
      );
      await expect(el).to.be.accessible();
      const color = getComputedStyle($(el, '[part~=complete]')).borderInlineStartColor;
      fixtureCleanup();
      sessionStorage.clear();
      return color;
    };
    const green = 'rgb(6, 118, 71)'; // --kyc-color-success's default
    expect(await accent('CHECKED_SUCCESS_CLEAR')).to.equal(green);
    expect(await accent('CHECKED_SUCCESS_WITH_NOTES')).to.equal(green);
    for (const s of ['CHECKED_FAILED', 'CHECKED_PARTIAL_SUCCESS', 'NO_MATCH', 'UNPROCESSABLE'])
      expect(await accent(s), s).not.to.equal(green);
  });

  it('9. Back from the hosted flow, the page restored as it was left (back/forward cache): checking, then the outcome', async () => {
    let final = false;
    mockApi({
      result: () =>
        HttpResponse.json(
          final ? { checkStatus: 'CHECKED_SUCCESS_CLEAR', ...done } : { checkStatus: 'CHECKING', verificationId: done.verificationId },
        ),
    });
    const el = await mount();
    el.navigate = () => {};
    el.pollIntervals = [60_000]; // the tab that left asks once, then waits
    await fillValid(el);
    await submit(el);
    await waitState(el, 'redirecting');
    // The browser restores the page from the back/forward cache.
    final = true;
    el.pollIntervals = [0, 0, 0];
    const states: string[] = [];
    new MutationObserver(() => states.push(el.getAttribute('state')!)).observe(el, { attributes: true, attributeFilter: ['state'] });
    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    await waitState(el, 'complete');
    expect(states).to.deep.equal(['checking', 'complete']);
    expect(sessionStorage.getItem(KEY)).to.equal(null);
  });

  it('9. Back without the cache (the page loads again) with the session in this tab: checking, then the outcome, not an empty form', async () => {
    sessionStorage.setItem(KEY, JSON.stringify({ session: 'left-behind', urlExpiry: new Date(Date.now() + 600_000).toISOString() }));
    const calls = mockApi({ result: () => HttpResponse.json({ checkStatus: 'NO_MATCH', ...done }) });
    const el = await mount();
    await waitState(el, 'complete');
    expect(el.checkStatus).to.equal('NO_MATCH');
    // (A request the previous test's element had in flight may land here too: look for this session's.)
    expect(calls.result.map((c) => c.body)).to.deep.include({ session: 'left-behind' });
  });

  it('9. Back, the person did not finish: at once "Continue the check" (the same link) and "Change my details" (values kept)', async () => {
    const calls = mockApi({ result: () => HttpResponse.json({ checkStatus: 'CHECKING', verificationId: done.verificationId }) });
    const el = await mount();
    const went: string[] = [];
    el.navigate = (url) => void went.push(url);
    el.pollIntervals = [60_000];
    await fillValid(el);
    await submit(el);
    await waitState(el, 'redirecting');
    const shownAt = performance.now();
    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    await until(() => buttons(el).includes('Continue the check'), 'the ways on');
    expect(performance.now() - shownAt).to.be.below(1000);
    expect(buttons(el)).to.deep.equal(['Continue the check', 'Change my details']);
    expect(text(el)).to.contain('The check is not finished yet.');
    expect(text(el)).not.to.contain('Checking your result');
    await expect(el).to.be.accessible();
    // "Continue the check": the same hosted flow again, where the worker says it is now (asked with the session).
    [...el.shadowRoot!.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Continue the check')!.click();
    await until(() => went.length === 2, 'went on');
    await waitState(el, 'redirecting');
    expect(went).to.deep.equal(['https://hosted.example/flow/abc', 'https://hosted.example/flow/abc']);
    expect(calls.link.at(-1)!.body).to.include({ session: linkAnswer().session });
    // Back again, and this time "Change my details": the form as it was.
    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    await until(() => buttons(el).includes('Change my details'), 'the ways on again');
    [...el.shadowRoot!.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Change my details')!.click();
    await waitState(el, 'idle');
    await el.updateComplete;
    expect($(el, '#familyName').value).to.equal('Citizen');
    expect($(el, '#phoneNumber').value).to.equal('0412 345 678');
    expect(sessionStorage.getItem(KEY)).to.equal(null);
  });

  it('9. Back after a reload (no cache), the link still valid: the same two ways on, "Continue the check" to where the worker says the flow is', async () => {
    sessionStorage.setItem(
      KEY,
      JSON.stringify({
        session: 'left-behind',
        url: 'https://hosted.example/flow/kept',
        urlExpiry: new Date(Date.now() + 600_000).toISOString(),
      }),
    );
    // A vendor whose hosted URL works once (Stripe): the worker answers a fresh one, never the kept one.
    const calls = mockApi({
      result: () => HttpResponse.json({ checkStatus: 'CHECKING', verificationId: done.verificationId }),
      link: () => HttpResponse.json(linkAnswer({ url: 'https://hosted.example/flow/fresh', session: 'left-behind' })),
    });
    const el = await mount();
    el.pollIntervals = [60_000];
    await until(() => buttons(el).includes('Continue the check'), 'the ways on');
    await until(() => calls.result.length >= 1, 'the tab keeps asking meanwhile');
    const went: string[] = [];
    el.navigate = (url) => void went.push(url);
    [...el.shadowRoot!.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Continue the check')!.click();
    await until(() => went.length === 1, 'went on');
    expect(went).to.deep.equal(['https://hosted.example/flow/fresh']);
    expect(calls.link.map((c) => c.body.session)).to.deep.equal(['left-behind']);
  });

  it('9. a popup through a custom navigate (or a return in another tab): the first tab reaches the outcome by itself', async () => {
    let finished = false;
    const calls = mockApi({
      result: () =>
        HttpResponse.json(
          finished
            ? { checkStatus: 'CHECKED_SUCCESS_WITH_NOTES', ...done }
            : { checkStatus: 'CHECKING', verificationId: done.verificationId },
        ),
    });
    const el = await mount();
    const opened: string[] = [];
    el.navigate = (url) => opened.push(url); // as window.open(url) would: this page stays
    await fillValid(el);
    await submit(el);
    await waitState(el, 'redirecting');
    expect(opened).to.deep.equal([linkAnswer().url]);
    await until(() => calls.result.length >= 1, 'the first tab asks');
    finished = true; // the person finished in the popup
    const complete = oneEvent(el, 'kyc-complete');
    expect((await complete).detail.checkStatus).to.equal('CHECKED_SUCCESS_WITH_NOTES');
    expect(el.state).to.equal('complete');
    // (A request the previous test's element had in flight may land here too: only this tab's count.)
    const mine = calls.result.filter((c) => c.body.session !== 'left-behind');
    expect(mine.length).to.be.at.least(1);
    for (const c of mine) expect(c.body).to.deep.equal({ session: linkAnswer().session });
  });

  it('10. the default return-url is this page with its own query string (no fragment, none of the widget’s return parameters)', async () => {
    history.replaceState(null, '', `${startUrl}&campaign=spring#offers`);
    const calls = mockApi();
    const el = await mount();
    el.addEventListener('kyc-redirect', (e) => e.preventDefault());
    await fillValid(el);
    await submit(el);
    await waitState(el, 'redirecting');
    const back = new URL(calls.link[0]!.body.returnUrl!);
    expect(back.origin + back.pathname).to.equal(location.origin + location.pathname);
    expect(back.searchParams.get('campaign')).to.equal('spring');
    expect(back.hash).to.equal('');
    expect(back.search).to.equal(new URL(startUrl).search + '&campaign=spring');
  });

  it('11. a page that changes <html lang> after the first render gets the widget in the new language', async () => {
    mockApi();
    document.documentElement.lang = 'en';
    const el = await mount();
    expect($(el, 'label[for=familyName]').textContent).to.equal('Family name');
    document.documentElement.lang = 'fr';
    await labelIs(el, 'familyName', 'Nom de famille');
    expect($(el, '[part=base]').lang).to.equal('fr');
    document.documentElement.lang = 'ar';
    await labelIs(el, 'familyName', 'اسم العائلة');
    expect($(el, '[part=base]').dir).to.equal('rtl');
    // The element's own lang attribute still wins.
    el.setAttribute('lang', 'de');
    await labelIs(el, 'familyName', 'Nachname');
    expect(text(el)).to.contain('Identität bestätigen');
  });
});
