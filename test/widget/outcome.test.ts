// What the person reads next, state by state: one outcome slot per kind of outcome (a success never shows the
// failure's hint), consent kept for the next attempt of the same verification, how long a rate limit lasts, and a
// phone in landscape is still a phone.
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { HttpResponse } from 'msw';
import { $, countRole, errorAnswer, fillValid, mockApi, mount, oneEvent, submit, text, waitState, setViewport } from './helpers.js';

const startUrl = location.href;
const vid = 'vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ';

afterEach(async () => {
  fixtureCleanup();
  sessionStorage.clear();
  history.replaceState(null, '', startUrl);
  await executeServerCommand('phone', false);
  await setViewport({ width: 800, height: 600 });
});

/** Back from the hosted flow to a final `checkStatus`, with the partner's three slots filled. */
async function finalWith(checkStatus: string) {
  mockApi({ result: () => HttpResponse.json({ checkStatus, verificationId: vid, resultToken: 'h.c.s', status: 'final' }) });
  history.replaceState(null, '', `${startUrl.split('?')[0]}?kyc_return=success`);
  sessionStorage.setItem('kyc-onboard:session', JSON.stringify({ session: 'ended' }));
  const el = await mount(
    html`<kyc-onboard
      ><p slot="outcome-verified">Your account is open.</p>
      <p slot="outcome-failed">Visit a branch with your passport.</p>
      <p slot="outcome">Either way: call us.</p></kyc-onboard
    >`,
  );
  await waitState(el, 'complete');
  await el.updateComplete;
  return el;
}
/** The partner's slotted paragraphs that are rendered (a slot's fallback is not, once the slot has content). */
const shown = (el: HTMLElement) => [...el.children].filter((c) => c.getClientRects().length > 0).map((c) => c.textContent);

describe('outcome slots', () => {
  it('a success shows outcome-verified, never the failure’s hint; focus is on the message', async () => {
    const el = await finalWith('CHECKED_SUCCESS_CLEAR');
    expect(shown(el)).to.deep.equal(['Your account is open.']);
    expect(text(el)).to.contain('Thanks, you’re verified.');
    expect(el.shadowRoot!.activeElement?.id).to.equal('focus');
    await expect(el).to.be.accessible();
  });

  it('a failure shows outcome-failed, not the success’s', async () => {
    const el = await finalWith('NO_MATCH');
    expect(shown(el)).to.deep.equal(['Visit a branch with your passport.']);
    await expect(el).to.be.accessible();
  });
});

describe('rate limit', () => {
  it('says until when (Retry-After), as a time of day in the page’s language', async () => {
    mockApi({ link: () => errorAnswer(429, 'RATE_LIMITED', [], { 'Retry-After': '900' }) });
    const el = await mount();
    await fillValid(el);
    const failed = oneEvent(el, 'kyc-error');
    const before = Date.now();
    await submit(el);
    await failed;
    await waitState(el, 'error');
    await el.updateComplete;
    // The minute the wait ends, on this browser's clock: read before and after the request (a minute may turn between).
    const at = (t: number) => new Intl.DateTimeFormat('en', { timeStyle: 'short' }).format(t + 900_000);
    const said = text(el);
    expect(said).to.contain('Too many attempts from this network. Please try again after');
    expect(
      [at(before), at(Date.now())].some((t) => said.includes(t)),
      said,
    ).to.equal(true);
    expect(el.shadowRoot!.activeElement?.id).to.equal('alert');
    await expect(el).to.be.accessible();
  });
  it('says until when even where the page’s language is not a language tag (lang="en_US"; WebKitGTK’s "C")', async () => {
    mockApi({ link: () => errorAnswer(429, 'RATE_LIMITED', [], { 'Retry-After': '900' }) });
    const el = await mount(html`<kyc-onboard lang="en_US" country-code="+61"></kyc-onboard>`);
    expect(() => new Intl.DateTimeFormat('en_US'), 'Intl refuses the tag').to.throw(RangeError);
    await fillValid(el);
    const before = Date.now();
    await submit(el);
    await waitState(el, 'error');
    await el.updateComplete;
    // The browser's own default writes the time: the view renders instead of throwing.
    const at = (t: number) => new Intl.DateTimeFormat(undefined, { timeStyle: 'short' }).format(t + 900_000);
    const said = text(el);
    expect(said).to.contain('Too many attempts from this network. Please try again after');
    expect(
      [at(before), at(Date.now())].some((t) => said.includes(t)),
      said,
    ).to.equal(true);
  });
});

describe('a phone in landscape', () => {
  it('844×390 with a touch screen: "Continue on my phone" is not offered', async function () {
    mockApi();
    const touch = await executeServerCommand('phone', true);
    if (touch === 'unsupported') this.skip(); // touch is emulated through Chromium's DevTools protocol only
    await setViewport({ width: 844, height: 390 });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    await el.updateComplete;
    expect(await countRole('radio', 'Continue on my phone')).to.equal(0);
    expect($(el, '#here')).to.exist;
  });
});
