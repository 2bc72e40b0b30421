// The form: accessible names, validation, tidying, keyboard-only completion, submit and its events.
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import { isoDayBefore } from '../support/dates.js';
import {
  $,
  check,
  countRole,
  deferred,
  fillValid,
  linkAnswer,
  mockApi,
  mount,
  oneEvent,
  submit,
  text,
  type,
  typeDob,
  until,
  valid,
  waitState,
  sendKeys,
} from './helpers.js';

afterEach(() => {
  fixtureCleanup();
  sessionStorage.clear();
});

describe('<kyc-onboard> form', () => {
  it('is accessible in idle, with the contract accessible names', async () => {
    mockApi();
    const el = await mount();
    await expect(el).to.be.accessible();
    expect(el.getAttribute('state')).to.equal('idle');
    expect(await countRole('textbox', 'Family name')).to.equal(1);
    expect(await countRole('textbox', 'Given name (if you have one)')).to.equal(1);
    expect(await countRole('textbox', 'Middle name')).to.equal(1);
    expect(await countRole('textbox', 'Country code')).to.equal(1);
    expect(await countRole('textbox', 'Mobile number')).to.equal(1);
    // Date of birth: a group of three numeric fields, each with its birthday autofill token.
    expect(await countRole('group', 'Date of birth')).to.equal(1);
    for (const [id, name, token] of [
      ['dobDay', 'Day', 'bday-day'],
      ['dobMonth', 'Month', 'bday-month'],
      ['dobYear', 'Year', 'bday-year'],
    ]) {
      expect(await countRole('textbox', name!), name).to.equal(1);
      expect($(el, `#${id}`).getAttribute('autocomplete'), id).to.equal(token);
      expect($(el, `#${id}`).inputMode, id).to.equal('numeric');
    }
    expect(await countRole('checkbox', 'I agree to an identity check against official records.')).to.equal(1);
    expect(await countRole('button', 'Verify my identity')).to.equal(1);
    expect(el.shadowRoot!.querySelectorAll('input[type=checkbox]').length).to.equal(1);
    // The middle name says it is optional in its description; the given name says what it is in its name.
    expect($(el, '#middleName').getAttribute('aria-describedby')).to.equal('middleName-hint');
    expect($(el, '#middleName-hint').textContent).to.equal('Optional');
    expect($(el, '#givenName').hasAttribute('aria-describedby')).to.equal(false);
    for (const id of ['givenName', 'middleName']) expect($(el, `#${id}`).required).to.equal(false);
    for (const id of ['familyName', 'dobDay', 'dobMonth', 'dobYear', 'phoneCode', 'phoneNumber', 'consent'])
      expect($(el, `#${id}`).required, id).to.equal(true);
    // Field errors are polite live regions, so they are announced when they appear.
    for (const id of ['givenName', 'familyName', 'dateOfBirth', 'phoneCode', 'phoneNumber', 'consent']) {
      expect($(el, `#${id}-error`).getAttribute('aria-live'), id).to.equal('polite');
    }
    expect($<HTMLFormElement>(el, 'form').noValidate).to.equal(true);
    // No SMS choice without the `sms` attribute.
    expect(await countRole('radio', 'Text me a link')).to.equal(0);
  });

  it('names the consent checkbox by the slotted consent text', async () => {
    mockApi();
    await mount(html`<kyc-onboard><span slot="consent">I accept the Acme privacy terms</span></kyc-onboard>`);
    expect(await countRole('checkbox', 'I accept the Acme privacy terms')).to.equal(1);
  });

  it('offers the radio pair with `sms`, "Continue on this device" preselected', async () => {
    mockApi();
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    expect(await countRole('radio', 'Continue on this device')).to.equal(1);
    expect(await countRole('radio', 'Text me a link')).to.equal(1);
    expect($(el, '#here').checked).to.equal(true);
    expect($(el, '#sms').checked).to.equal(false);
    await expect(el).to.be.accessible();
  });

  it('shows errors only after a submission (never on blur), and clears each as its field is fixed', async () => {
    mockApi();
    const el = await mount();
    expect($(el, '#familyName').hasAttribute('aria-invalid')).to.equal(false);
    await type(el, 'familyName', '   ');
    // Leaving a wrong field shows nothing yet: an error line appearing on blur would move the form under the pointer.
    expect($(el, '#familyName').hasAttribute('aria-invalid')).to.equal(false);
    expect($(el, '#familyName-error').textContent).to.equal('');
    await submit(el);
    expect($(el, '#familyName').getAttribute('aria-invalid')).to.equal('true');
    expect($(el, '#familyName-error').textContent).to.equal('Enter your family name.');
    // Fixing the field clears the error.
    await type(el, 'familyName', 'Citizen');
    expect($(el, '#familyName').hasAttribute('aria-invalid')).to.equal(false);
  });

  it('on an invalid submit: marks each bad field, links its error, focuses the first, sends nothing', async () => {
    const calls = mockApi();
    const el = await mount();
    let submitted = false;
    el.addEventListener('kyc-submit', () => (submitted = true));
    await typeDob(el, isoDayBefore(0, -1)); // tomorrow
    await submit(el);
    for (const id of ['familyName', 'dobDay', 'dobMonth', 'dobYear', 'phoneNumber', 'consent']) {
      const input = $(el, `#${id}`);
      expect(input.getAttribute('aria-invalid'), id).to.equal('true');
      const described = $(el, `#${input.getAttribute('aria-describedby')!.split(' ').pop()}`);
      expect(described.textContent.length, id).to.be.greaterThan(3);
      expect(input.validity.customError, id).to.equal(true);
    }
    expect($(el, '#dateOfBirth-error').textContent).to.contain('past');
    expect($(el, '#givenName').hasAttribute('aria-invalid')).to.equal(false);
    expect(el.shadowRoot!.activeElement?.id).to.equal('familyName');
    expect(el.state).to.equal('idle');
    expect(calls.link.length).to.equal(0);
    expect(submitted).to.equal(false);
    await expect(el).to.be.accessible();
  });

  it('a name a reader cannot see (Hangul filler, blank Braille) is no name, by the rule the worker uses (rules/name.ts)', async () => {
    const calls = mockApi();
    const el = await mount();
    el.addEventListener('kyc-redirect', (e) => e.preventDefault());
    await fillValid(el, { familyName: '\u3164\u2800' });
    await submit(el);
    expect($(el, '#familyName').getAttribute('aria-invalid')).to.equal('true');
    expect($(el, '#familyName-error').textContent).to.equal('Enter your family name.');
    expect(calls.link.length).to.equal(0);
    // An invisible given name is left out rather than refused.
    await type(el, 'familyName', 'Citizen');
    await type(el, 'givenName', '\u3164');
    await submit(el);
    await waitState(el, 'redirecting');
    expect(calls.link[0]!.body.name).to.deep.equal({ familyName: 'Citizen' });
  });

  it('a name with characters no name needs (zero-width space, a mark with no base) is refused before any request; names go NFC', async () => {
    const calls = mockApi();
    const el = await mount();
    el.addEventListener('kyc-redirect', (e) => e.preventDefault());
    await fillValid(el, { familyName: 'Ci\u200btizen', givenName: '\u0301Ana' });
    await submit(el);
    for (const f of ['familyName', 'givenName']) {
      expect($(el, `#${f}`).getAttribute('aria-invalid')).to.equal('true', f);
      expect($(el, `#${f}-error`).textContent).to.equal('Remove the invisible or special characters from this name.');
    }
    expect(calls.link.length).to.equal(0);
    await type(el, 'familyName', 'Nguye\u0302\u0303n');
    await type(el, 'givenName', 'Ana');
    await submit(el);
    await waitState(el, 'redirecting');
    expect(calls.link[0]!.body.name).to.deep.equal({ givenName: 'Ana', familyName: 'Nguy\u1ec5n' });
  });

  it('rejects a birth date more than 120 years ago and a too-short number', async () => {
    mockApi();
    const el = await mount();
    await typeDob(el, '1890-01-01');
    await type(el, 'phoneNumber', '12');
    await type(el, 'phoneCode', 'abc');
    await submit(el);
    expect($(el, '#dobYear').getAttribute('aria-invalid')).to.equal('true');
    expect($(el, '#phoneNumber').getAttribute('aria-invalid')).to.equal('true');
    expect($(el, '#phoneCode').getAttribute('aria-invalid')).to.equal('true');
  });

  it('can be completed with the keyboard only', async () => {
    const calls = mockApi();
    const el = await mount();
    el.addEventListener('kyc-redirect', (e) => e.preventDefault());
    const focused = () => el.shadowRoot!.activeElement as HTMLElement | null;
    /** Press Tab until `target` has focus (a date input may take an extra Tab for its segments). */
    async function tabTo(target: string) {
      for (let i = 0; i < 4 && !focused()?.matches(target); i++) await sendKeys({ press: 'Tab' });
      expect(focused()?.matches(target), target).to.equal(true);
    }
    $(el, '#givenName').focus();
    await sendKeys({ type: 'Jane' });
    await tabTo('#middleName');
    await tabTo('#familyName');
    await sendKeys({ type: 'Citizen' });
    // The date of birth, in the order the page's language writes dates (month first in en-US), one field each.
    const [y, m, d] = valid.dateOfBirth.split('-');
    const order = [...el.shadowRoot!.querySelectorAll('.dob input')].map((i) => i.id);
    const typed: Record<string, string> = { dobDay: d!, dobMonth: m!, dobYear: y! };
    for (const id of order) {
      await tabTo(`#${id}`);
      await sendKeys({ type: typed[id]! });
    }
    await tabTo('#phoneCode'); // +61 already there
    await tabTo('#phoneNumber');
    await sendKeys({ type: '0412 345 678' });
    await tabTo('#consent');
    await sendKeys({ press: ' ' });
    expect($(el, '#consent').checked, 'Space ticks the consent').to.equal(true);
    await tabTo('button[type=submit]');
    const redirect = oneEvent(el, 'kyc-redirect');
    await sendKeys({ press: 'Enter' });
    await redirect;
    expect(calls.link.length).to.equal(1);
    expect(calls.link[0]!.body).to.deep.include({ dateOfBirth: valid.dateOfBirth, consent: true });
    expect(calls.link[0]!.body.name).to.deep.equal({ givenName: 'Jane', familyName: 'Citizen' });
    expect(calls.link[0]!.body.phone).to.deep.equal({ code: '+61', number: '412345678' });
  });

  it('submits with Enter from a text field', async () => {
    const calls = mockApi();
    const el = await mount();
    el.navigate = () => {};
    await fillValid(el);
    $(el, '#familyName').focus();
    await sendKeys({ press: 'Enter' });
    await waitState(el, 'redirecting');
    expect(calls.link.length).to.equal(1);
  });

  it('tidies what people type before sending', async () => {
    const calls = mockApi();
    const el = await mount();
    el.addEventListener('kyc-redirect', (e) => e.preventDefault());
    await fillValid(el, { givenName: '  Mary   Anne ', familyName: ' van  der Berg ', phoneNumber: '+61 (0)412-345.678' });
    await type(el, 'phoneCode', '61');
    await type(el, 'middleName', '   ');
    expect($(el, '#phoneCode').value).to.equal('+61');
    await submit(el);
    await waitState(el, 'redirecting');
    const body = calls.link[0]!.body;
    expect(body.name).to.deep.equal({ givenName: 'Mary Anne', familyName: 'van der Berg' });
    expect(body.phone).to.deep.equal({ code: '+61', number: '412345678' });
  });

  it('submits: submitting (accessible, busy) → kyc-submit, kyc-link, kyc-redirect → navigates', async () => {
    const hold = deferred();
    const calls = mockApi({
      link: async () => {
        await hold.promise;
        return HttpResponse.json(linkAnswer());
      },
    });
    const el = await mount(html`<kyc-onboard customer-ref="crm-42"></kyc-onboard>`);
    const seen: string[] = [];
    for (const name of ['kyc-submit', 'kyc-link', 'kyc-redirect', 'kyc-complete', 'kyc-error'] as const) {
      document.addEventListener(name, (e) => seen.push(`${e.type}:${e.bubbles}:${e.composed}`));
    }
    const navigated: string[] = [];
    el.navigate = (url) => navigated.push(url);
    await fillValid(el);
    const submitEvent = oneEvent(el, 'kyc-submit');
    await submit(el);
    expect((await submitEvent).detail).to.deep.equal({ sendSMS: false, handoff: false });
    expect(el.state).to.equal('submitting');
    expect(el.getAttribute('state')).to.equal('submitting');
    expect(el.matches(':state(submitting)')).to.equal(true);
    expect($(el, 'button[type=submit]').getAttribute('aria-disabled')).to.equal('true');
    expect(text(el)).to.contain('Please wait');
    await expect(el).to.be.accessible();
    const link = oneEvent(el, 'kyc-link');
    const redirect = oneEvent(el, 'kyc-redirect');
    hold.resolve();
    expect((await link).detail).to.deep.include({ url: 'https://hosted.example/flow/abc', smsSent: false });
    const r = await redirect;
    expect(r.detail.url).to.equal('https://hosted.example/flow/abc');
    expect(r.cancelable).to.equal(true);
    expect(el.state).to.equal('redirecting');
    expect(navigated).to.deep.equal(['https://hosted.example/flow/abc']);
    expect(seen).to.deep.equal(['kyc-submit:true:true', 'kyc-link:true:true', 'kyc-redirect:true:true']);
    const call = calls.link[0]!;
    expect(call.key).to.match(/^[0-9a-f-]{32,36}$/);
    // The page's own address, its query string included (the test runner's ?wtr-session-id=…), without a fragment.
    expect(call.body.returnUrl).to.equal(location.href.split('#')[0]);
    expect(call.body.returnUrl).to.contain('?');
    expect(call.body.customerRef).to.equal('crm-42');
    expect(call.body).not.to.have.property('sendSMS');
    expect(call.body).not.to.have.property('turnstileToken');
    // The session waits in sessionStorage for the return, with the link for "Continue the check" after Back;
    // nothing personal is stored.
    const stored = sessionStorage.getItem('kyc-onboard:session')!;
    expect(JSON.parse(stored).session).to.equal('sess-123');
    expect(Object.keys(JSON.parse(stored))).to.deep.equal(['session', 'urlExpiry', 'url']);
    expect(stored).not.to.contain('Citizen');
    expect(stored).not.to.contain('1990');
    expect(localStorage.length).to.equal(0);
  });

  it('sends `return-url` when set', async () => {
    const calls = mockApi();
    const el = await mount(html`<kyc-onboard return-url="https://partner.example/back"></kyc-onboard>`);
    el.navigate = () => {};
    await fillValid(el);
    await submit(el);
    await waitState(el, 'redirecting');
    expect(calls.link[0]!.body.returnUrl).to.equal('https://partner.example/back');
  });

  it('kyc-redirect is cancelable: preventDefault keeps the page where it is', async () => {
    mockApi();
    const el = await mount();
    const navigated: string[] = [];
    el.navigate = (url) => navigated.push(url);
    el.addEventListener('kyc-redirect', (e) => e.preventDefault());
    await fillValid(el);
    // navigate() would run right after the event's listeners (the same task): by the time it is seen, it would have.
    const redirect = oneEvent(el, 'kyc-redirect');
    await submit(el);
    await redirect;
    await waitState(el, 'redirecting');
    expect(navigated).to.deep.equal([]);
    // The host got the URL; the widget offers it as a plain link too.
    expect($(el, 'a[part=link]').getAttribute('href')).to.equal('https://hosted.example/flow/abc');
    await expect(el).to.be.accessible();
  });

  it('a double click sends one request', async () => {
    const hold = deferred();
    const calls = mockApi({
      link: async () => {
        await hold.promise;
        return HttpResponse.json(linkAnswer());
      },
    });
    const el = await mount();
    el.navigate = () => {};
    await fillValid(el);
    const button = $(el, 'button[type=submit]');
    button.click();
    button.click();
    button.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
    $<HTMLFormElement>(el, 'form').requestSubmit();
    // Every press above came before the first request left (they were all in this task): wait for that request.
    await until(() => calls.link.length > 0, 'the first request');
    hold.resolve();
    await waitState(el, 'redirecting');
    expect(calls.link.length).to.equal(1);
  });

  it('never follows a non-http link', async () => {
    mockApi({ link: () => HttpResponse.json(linkAnswer({ url: 'javascript:alert(1)' })) });
    const el = await mount();
    const navigated: string[] = [];
    el.navigate = (url) => navigated.push(url);
    await fillValid(el);
    await submit(el);
    await waitState(el, 'error');
    expect(navigated).to.deep.equal([]);
  });

  it('uses one radio choice for SMS, and sends sendSMS only when chosen', async () => {
    const calls = mockApi();
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    el.navigate = () => {};
    await fillValid(el);
    await check(el, 'sms');
    await check(el, 'here');
    await submit(el);
    await waitState(el, 'redirecting');
    expect(calls.link[0]!.body).not.to.have.property('sendSMS');
  });
});
