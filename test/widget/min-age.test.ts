// The partner's settings from its worker (`GET {endpoint}/settings`): the minimum age refuses a younger person before
// any request, with a message in the page's language; the texting countries decide where "Text me a link" is offered.
// Every date of birth is computed from the test's clock (the widget counts ages on this browser's UTC day).
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { isoDayBefore } from '../support/dates.js';
import { $, errorAnswer, fillValid, maybe, mockApi, mount, submit, type, typeDob, until, waitState } from './helpers.js';
import type { KycOnboard } from '../../widget/index.js';

afterEach(() => {
  fixtureCleanup();
  sessionStorage.clear(); // a redirect keeps its session for the return: the next test starts afresh
});

/** The test's clock: the moment it reads it, for every date of birth it computes. */
const now = () => new Date();
const settled = (el: KycOnboard) =>
  until(() => (el as unknown as { _flow: { settings?: object } })._flow.settings !== undefined, 'settings');

describe('minimum age (the partner setting minAge)', () => {
  it('refuses a 15-year-old before any request, says the minimum, marks the date, moves focus to it', async () => {
    const calls = mockApi({ settings: { minAge: 18 } });
    const el = await mount();
    await settled(el);
    await fillValid(el, { dateOfBirth: isoDayBefore(15, 30, now()) });
    await submit(el);
    expect(calls.link.length).to.equal(0);
    expect(el.state).to.equal('idle');
    expect($(el, '#dateOfBirth-error').textContent).to.equal('Minimum age to continue: 18.');
    for (const id of ['dobDay', 'dobMonth', 'dobYear']) expect($(el, `#${id}`).getAttribute('aria-invalid'), id).to.equal('true');
    await until(() => el.shadowRoot!.activeElement?.id?.startsWith('dob') === true, 'focus on the date');
    await expect(el).to.be.accessible();
  });

  it('turns 18 today: accepted; a day short: refused', async () => {
    const calls = mockApi({ settings: { minAge: 18 } });
    const el = await mount();
    el.navigate = () => {};
    await settled(el);
    await fillValid(el, { dateOfBirth: isoDayBefore(18, -1, now()) });
    await submit(el);
    expect(calls.link.length).to.equal(0);
    await typeDob(el, isoDayBefore(18, 0, now()));
    await submit(el);
    await waitState(el, 'redirecting');
    expect(calls.link.length).to.equal(1);
  });

  it('says it in the page’s language (German)', async () => {
    mockApi({ settings: { minAge: 21 } });
    const el = await mount(html`<kyc-onboard lang="de-DE"></kyc-onboard>`);
    await settled(el);
    await fillValid(el, { dateOfBirth: isoDayBefore(20, 0, now()) });
    await submit(el);
    await until(() => maybe(el, '#dateOfBirth-error')?.textContent === 'Mindestalter, um fortzufahren: 21.', 'the German message');
  });

  it('no minAge: a 15-year-old goes on (the worker decides)', async () => {
    const calls = mockApi();
    const el = await mount();
    el.navigate = () => {};
    await settled(el);
    await fillValid(el, { dateOfBirth: isoDayBefore(15, 30, now()) });
    await submit(el);
    await waitState(el, 'redirecting');
    expect(calls.link.length).to.equal(1);
  });

  it('the worker’s refusal (a minimum the page had not heard of) is said the same way, on the date', async () => {
    mockApi({
      settings: {},
      link: () => errorAnswer(400, 'VALIDATION_FAILED', [{ issue: 'must be at least 16 years ago', issueLocation: 'dateOfBirth' }]),
    });
    const el = await mount();
    await settled(el);
    await fillValid(el, { dateOfBirth: isoDayBefore(15, 30, now()) });
    await submit(el);
    await until(() => maybe(el, '#dateOfBirth-error')?.textContent === 'Minimum age to continue: 16.', 'the message');
    await expect(el).to.be.accessible();
  });
});

describe('texting countries from the worker', () => {
  const offered = (el: KycOnboard) => maybe(el, 'input[name=delivery][value=sms]') !== null;

  it('offers "Text me a link" where the worker texts (NZ only here): not for +61, yes for +64', async () => {
    mockApi({ settings: { sms: true, smsCountries: ['NZ'] } });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    await settled(el);
    await el.updateComplete;
    expect(offered(el), '+61').to.equal(false);
    await type(el, 'phoneCode', '+64');
    expect(offered(el), '+64').to.equal(true);
  });

  it('a worker that cannot text: never offered, even with `sms`', async () => {
    mockApi({ settings: { sms: false, smsCountries: [] } });
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    await settled(el);
    await el.updateComplete;
    expect(offered(el)).to.equal(false);
  });

  it('the page’s own `sms-countries` narrows the worker’s list', async () => {
    mockApi({ settings: { sms: true, smsCountries: ['AU', 'NZ'] } });
    const el = await mount(html`<kyc-onboard sms sms-countries="NZ"></kyc-onboard>`);
    await settled(el);
    await el.updateComplete;
    expect(offered(el), '+61').to.equal(false);
    await type(el, 'phoneCode', '+64');
    expect(offered(el), '+64').to.equal(true);
  });
});
