// The person's first screen fits the person: the country code from the language's region, texting only where it may
// go, no "Continue on my phone" on a phone, family name first where the language writes it first, the intro line, and
// a refused number that says which country its code is.
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { $, countRole, errorAnswer, fillValid, labelIs, maybe, mockApi, mount, submit, text, until, setViewport } from './helpers.js';
import type { Strings } from '../../widget/i18n/en.js';
import type { KycOnboard } from '../../widget/index.js';

afterEach(async () => {
  fixtureCleanup();
  sessionStorage.clear();
  await executeServerCommand('phone', false);
  await setViewport({ width: 800, height: 600 });
});

const code = (el: KycOnboard) => $(el, '#phoneCode').value;

describe('<kyc-onboard> first screen', () => {
  it('takes the country code from the region of `lang`: de-DE → +49, ja-JP → +81', async () => {
    mockApi();
    for (const [lang, expected] of [
      ['de-DE', '+49'],
      ['ja-JP', '+81'],
      ['en-GB', '+44'],
    ]) {
      const el = await mount(html`<kyc-onboard lang=${lang}></kyc-onboard>`);
      await until(() => code(el) === expected, `${lang}: ${expected} (is ${code(el)})`);
      fixtureCleanup();
    }
  });

  it("without a region in `lang`, the partner's default country (the worker's settings): DE → +49; `lang`'s region wins", async () => {
    const calls = mockApi({ settings: { defaultCountry: 'DE' } });
    const el = await mount(html`<kyc-onboard lang="en"></kyc-onboard>`);
    await until(() => code(el) === '+49', `the partner's +49 (is ${code(el)})`);
    expect(calls.settings).to.equal(1);
    fixtureCleanup();
    const ja = await mount(html`<kyc-onboard lang="ja-JP"></kyc-onboard>`);
    await until(() => code(ja) === '+81', `lang's +81 (is ${code(ja)})`);
    // Asked again by the second element, whose language names a region: the settings also hold the minimum age and
    // where texts may go (min-age.test.ts). Its code is still the language's (+81), not the partner's.
    await until(() => calls.settings === 2, `one question per element (${calls.settings})`);
    expect(calls.settings, 'one question per element').to.equal(2);
  });

  it("without a region in `lang` nor a partner default, the browser's; `country-code` wins over both", async () => {
    mockApi();
    // A tag Intl refuses names no region (WebKitGTK's "C" under a C locale), as for the widget (calling-codes.ts).
    const region = (tag: string) => {
      try {
        return new Intl.Locale(tag).region;
      } catch {
        return undefined;
      }
    };
    const browser = navigator.languages.map(region).find(Boolean);
    const el = await mount(html`<kyc-onboard lang="de"></kyc-onboard>`);
    // The browser's region's code, or Australia's when the browser names none.
    await until(() => code(el) !== '', 'a code');
    expect(code(el)).to.equal(browser === 'US' ? '+1' : browser ? code(el) : '+61');
    fixtureCleanup();
    const fixed = await mount(html`<kyc-onboard lang="de-DE" country-code="+356"></kyc-onboard>`);
    await until(() => code(fixed) === '+356', 'the partner’s code');
  });

  it('offers "Text me a link" only for a country texting may go to (+356 is not, by default)', async () => {
    mockApi();
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    expect(maybe(el, '#sms')).to.exist;
    const input = $(el, '#phoneCode');
    input.value = '+356';
    input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    await el.updateComplete;
    expect(maybe(el, '#sms')).to.equal(null);
    expect(maybe(el, '#phone')).to.exist;
    // A partner whose worker texts Malta says so.
    fixtureCleanup();
    const mt = await mount(html`<kyc-onboard sms sms-countries="MT" country-code="+356"></kyc-onboard>`);
    expect(maybe(mt, '#sms')).to.exist;
  });

  it('offers no "Continue on my phone" on a phone (a coarse pointer and a narrow screen)', async function () {
    mockApi();
    // A touch screen is emulated through Chromium's DevTools protocol only: other engines' drivers answer 'unsupported'.
    const touch = await executeServerCommand('phone', true);
    if (touch === 'unsupported') this.skip();
    await setViewport({ width: 375, height: 700 });
    expect(touch).to.equal(true);
    expect(matchMedia('(pointer: coarse)').matches).to.equal(true);
    const el = await mount(html`<kyc-onboard sms></kyc-onboard>`);
    expect(await countRole('radio', 'Continue on my phone')).to.equal(0);
    expect(await countRole('radio', 'Text me a link')).to.equal(1);
    await expect(el).to.be.accessible();
    // A laptop's narrow window still offers it.
    await executeServerCommand('phone', false);
    el.requestUpdate();
    await el.updateComplete;
    expect(await countRole('radio', 'Continue on my phone')).to.equal(1);
  });

  it('puts the family name first where the language writes it first (ja, ko, zh, hu, vi)', async () => {
    mockApi();
    const order = (el: KycOnboard) => [...el.shadowRoot!.querySelectorAll('input[autocomplete$=name]')].map((i) => i.id);
    for (const lang of ['ja', 'ko', 'zh-Hans', 'zh-Hant', 'hu', 'vi', 'de', 'en']) {
      const el = await mount(html`<kyc-onboard lang=${lang}></kyc-onboard>`);
      const t =
        lang === 'en' ? { familyName: 'Family name' } : ((await import(`../../widget/i18n/${lang}.js`)) as { default: Strings }).default;
      await labelIs(el, 'familyName', t.familyName);
      await el.updateComplete;
      const familyFirst = !['de', 'en'].includes(lang);
      expect(order(el), lang).to.deep.equal(
        familyFirst ? ['familyName', 'givenName', 'middleName'] : ['givenName', 'middleName', 'familyName'],
      );
      fixtureCleanup();
    }
  });

  it('says what the check needs, how long and who checks above the form, with the privacy notice linked', async () => {
    mockApi();
    const el = await mount(html`<kyc-onboard privacy-url="https://partner.example/privacy"></kyc-onboard>`);
    const intro = $<HTMLElement>(el, '[part=intro]');
    expect(intro.compareDocumentPosition($(el, '#givenName')) & Node.DOCUMENT_POSITION_FOLLOWING).to.not.equal(0);
    expect(intro.textContent).to.contain('with our verification partner');
    expect(intro.textContent).to.contain('2 minutes');
    const link = $<HTMLAnchorElement>(el, '[part=intro] a');
    expect(link.href).to.equal('https://partner.example/privacy');
    expect(link.textContent).to.equal('How your data is used');
    await expect(el).to.be.accessible();
    fixtureCleanup();
    // Only an http(s) notice is linked.
    const bad = await mount(html`<kyc-onboard privacy-url="javascript:alert(1)"></kyc-onboard>`);
    expect(maybe(bad, '[part=intro] a')).to.equal(null);
  });

  it('a refused number says which country its code is', async () => {
    // A German mobile number under Australia's code: the worker refuses it.
    mockApi({ link: () => errorAnswer(400, 'VALIDATION_ERROR', [{ issue: 'not a valid mobile number', issueLocation: 'phone.number' }]) });
    const el = await mount();
    await fillValid(el, { phoneNumber: '0151 23456789' });
    await submit(el);
    await until(() => text(el).includes('+61 is Australia: is that right?'), `the country named (${text(el)})`);
    expect($(el, '#phoneNumber-error').textContent).to.equal('Enter a valid mobile number. +61 is Australia: is that right?');
  });

  it('an empty number is asked for, without a word about its country code', async () => {
    const el = await mount();
    await fillValid(el, { phoneNumber: '' });
    await submit(el);
    await until(() => ($(el, '#phoneNumber-error').textContent ?? '').trim() !== '', 'the number’s error');
    expect($(el, '#phoneNumber-error').textContent).to.equal('Enter a valid mobile number.');
  });
});
