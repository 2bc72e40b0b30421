// The 48 languages: each renders its own words, direction and date order; `<html lang>` switches the
// widget at run time; a partner's `strings` win over any language; axe-clean in Arabic and Japanese; digits typed on
// Arabic-Indic and Persian keyboards reach the worker as ASCII; counts use the language's plural forms.
// The dictionaries are the sources (the test runner serves widget/i18n/<code>.ts for `./i18n/<code>.js`).
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import { LANGUAGES } from '../../rules/language.js';
import type { Strings } from '../../widget/i18n/en.js';
import { adultDateOfBirth } from '../support/dates.js';
import { $, check, errorAnswer, labelIs, linkAnswer, mockApi, mount, oneEvent, submit, type, until, waitState } from './helpers.js';
import type { KycOnboard } from '../../widget/index.js';

// The test runner's own modules fill the default buffer of 250 entries: make room to see the dictionaries'.
performance.setResourceTimingBufferSize(10_000);

afterEach(() => {
  fixtureCleanup();
  sessionStorage.clear();
  document.documentElement.lang = '';
});

const dictionary = async (code: string): Promise<Strings> => (await import(`../../widget/i18n/${code}.js`)).default;
const order = (el: KycOnboard) => [...el.shadowRoot!.querySelectorAll('.dob input')].map((i) => i.id);
const base = (el: KycOnboard) => $<HTMLElement>(el, '[part=base]');
const button = (el: KycOnboard, name: string) => [...el.shadowRoot!.querySelectorAll('button')].find((b) => b.textContent?.trim() === name);

const YMD = ['ja', 'ko', 'zh-Hans', 'zh-Hant', 'hu', 'lt', 'sv', 'fa'];
const MDY = ['fil'];
const RTL = ['ar', 'he', 'fa', 'ur'];

describe('<kyc-onboard> in 48 languages', () => {
  it('every language renders its own words, direction and date order', async function () {
    this.timeout(180_000); // 48 forms, each fetching its dictionary: WebKitGTK beside CI's worker tests on 2 cores took over 60 s
    mockApi();
    expect(LANGUAGES.length).to.equal(48);
    for (const code of LANGUAGES) {
      const t = await dictionary(code);
      const el = await mount(html`<kyc-onboard lang=${code}></kyc-onboard>`);
      await labelIs(el, 'familyName', t.familyName);
      await el.updateComplete;
      expect($(el, 'button[type=submit]').textContent?.trim(), code).to.equal(t.submit);
      expect($(el, 'fieldset legend').textContent?.trim(), code).to.equal(t.dateOfBirth);
      expect($(el, 'label[for=dobYear]').textContent, code).to.equal(t.dobYear);
      expect(base(el).lang, code).to.equal(code);
      expect(base(el).dir, code).to.equal(RTL.includes(code) ? 'rtl' : 'ltr');
      const expected = YMD.includes(code)
        ? ['dobYear', 'dobMonth', 'dobDay']
        : MDY.includes(code)
          ? ['dobMonth', 'dobDay', 'dobYear']
          : ['dobDay', 'dobMonth', 'dobYear'];
      expect(order(el), code).to.deep.equal(expected);
      if (code !== 'en') expect(t.familyName, `${code} is translated`).not.to.equal((await dictionary('en')).familyName);
      fixtureCleanup();
    }
  });

  it('matches tags as people expect: pt-PT, pt-BR, zh-CN/SG/TW/HK, no/nn, tl; an unknown language is English', async () => {
    mockApi();
    const cases: [string, string][] = [
      ['pt-PT', 'pt'],
      ['pt-BR', 'pt-BR'],
      ['zh-CN', 'zh-Hans'],
      ['zh-SG', 'zh-Hans'],
      ['zh-Hans-HK', 'zh-Hans'],
      ['zh-TW', 'zh-Hant'],
      ['zh-HK', 'zh-Hant'],
      ['zh-Hant-TW', 'zh-Hant'],
      ['no', 'nb'],
      ['nn-NO', 'nb'],
      ['tl', 'fil'],
      ['fr-CA', 'fr'],
    ];
    for (const [tag, code] of cases) {
      const t = await dictionary(code);
      const el = await mount(html`<kyc-onboard lang=${tag}></kyc-onboard>`);
      await labelIs(el, 'familyName', t.familyName);
      expect(base(el).lang, tag).to.equal(code);
      fixtureCleanup();
    }
    // No dictionary for Georgian: English, and it stays English (no retry on every render).
    const el = await mount(html`<kyc-onboard lang="ka"></kyc-onboard>`);
    await until(() => performance.getEntriesByType('resource').some((r) => /\/i18n\/ka\.js/.test(r.name)), 'asked for ka');
    await type(el, 'familyName', 'Citizen');
    await type(el, 'givenName', 'Jane');
    expect($(el, 'label[for=familyName]').textContent).to.equal('Family name');
    expect(base(el).lang).to.equal('en');
    expect(base(el).dir).to.equal('ltr');
    expect(performance.getEntriesByType('resource').filter((r) => /\/i18n\/ka\.js/.test(r.name)).length).to.equal(1);
  });

  it('switching <html lang> at run time switches the widget: words, direction and date order', async () => {
    mockApi();
    const el = await mount(html`<kyc-onboard></kyc-onboard>`);
    document.documentElement.lang = 'de';
    await labelIs(el, 'familyName', (await dictionary('de')).familyName);
    expect(order(el)).to.deep.equal(['dobDay', 'dobMonth', 'dobYear']);
    document.documentElement.lang = 'ja';
    await labelIs(el, 'familyName', (await dictionary('ja')).familyName);
    expect(order(el)).to.deep.equal(['dobYear', 'dobMonth', 'dobDay']);
    expect(base(el).dir).to.equal('ltr');
    document.documentElement.lang = 'he';
    await labelIs(el, 'familyName', (await dictionary('he')).familyName);
    expect(base(el).dir).to.equal('rtl');
    expect(base(el).lang).to.equal('he');
    // The element's own lang attribute wins over the page's.
    el.setAttribute('lang', 'fil');
    await labelIs(el, 'familyName', (await dictionary('fil')).familyName);
    expect(order(el)).to.deep.equal(['dobMonth', 'dobDay', 'dobYear']);
  });

  it('a partner’s strings override any language, and only the keys given', async () => {
    mockApi();
    const pl = await dictionary('pl');
    const el = await mount(
      html`<kyc-onboard lang="pl" .strings=${{ submit: 'Dalej do weryfikacji', optional: 'nieobowiązkowe' }}></kyc-onboard>`,
    );
    await labelIs(el, 'familyName', pl.familyName);
    expect($(el, 'button[type=submit]').textContent?.trim()).to.equal('Dalej do weryfikacji');
    expect(el.shadowRoot!.textContent).to.contain('nieobowiązkowe');
    expect($(el, 'label[for=dobMonth]').textContent).to.equal(pl.dobMonth);
    // Over a right-to-left language too, set after the first render.
    el.setAttribute('lang', 'ar');
    await labelIs(el, 'familyName', (await dictionary('ar')).familyName);
    el.strings = { familyName: 'اسم العائلة (كما في الهوية)' };
    await labelIs(el, 'familyName', 'اسم العائلة (كما في الهوية)');
    expect($(el, 'button[type=submit]').textContent?.trim()).to.equal((await dictionary('ar')).submit);
  });

  for (const code of ['ar', 'ja']) {
    it(`axe finds no violations in ${code}`, async () => {
      mockApi();
      const el = await mount(html`<kyc-onboard lang=${code} sms></kyc-onboard>`);
      await labelIs(el, 'familyName', (await dictionary(code)).familyName);
      await expect(el).to.be.accessible();
    });
  }

  it('digits as the keyboard gives them: Arabic-Indic and Persian digits reach the worker as ASCII', async () => {
    const calls = mockApi();
    const el = await mount(html`<kyc-onboard lang="fa"></kyc-onboard>`);
    el.navigate = () => undefined;
    await labelIs(el, 'familyName', (await dictionary('fa')).familyName);
    const iso = adultDateOfBirth();
    const [year, month, day] = iso.split('-') as [string, string, string];
    const arabic = (s: string) => s.replace(/\d/g, (d) => String.fromCharCode(0x660 + Number(d)));
    const persian = (s: string) => s.replace(/\d/g, (d) => String.fromCharCode(0x6f0 + Number(d)));
    await type(el, 'familyName', 'رضایی');
    await type(el, 'dobDay', persian(day));
    await type(el, 'dobMonth', arabic(month));
    await type(el, 'dobYear', persian(year));
    await type(el, 'phoneCode', persian('+98'));
    await type(el, 'phoneNumber', persian('0912 345 6789'));
    await check(el, 'consent');
    const sent = oneEvent(el, 'kyc-submit');
    await submit(el);
    await sent;
    await until(() => calls.link.length === 1, 'link requested');
    const body = calls.link[0]!.body;
    expect(body.dateOfBirth).to.equal(iso);
    expect(body.phone).to.deep.equal({ code: '+98', number: '9123456789' });
  });

  it('sends the dictionary it matched as lang (the phone’s pages speak it): zh-TW → zh-Hant', async () => {
    const calls = mockApi({ link: () => HttpResponse.json(linkAnswer({ smsSent: true, url: undefined, claimCode: '123456' })) });
    const el = await mount(html`<kyc-onboard lang="zh-TW" sms sms-countries="TW"></kyc-onboard>`);
    await labelIs(el, 'familyName', (await dictionary('zh-Hant')).familyName);
    await type(el, 'familyName', '陳');
    const [year, month, day] = adultDateOfBirth().split('-') as [string, string, string];
    await type(el, 'dobDay', day);
    await type(el, 'dobMonth', month);
    await type(el, 'dobYear', year);
    await type(el, 'phoneNumber', '0912 345 678');
    await check(el, 'consent');
    await check(el, 'sms');
    await submit(el);
    await waitState(el, 'sms-sent');
    expect(calls.link[0]!.body.lang).to.equal('zh-Hant');
  });

  it('counts in the language’s plural forms (Intl.PluralRules): a refused Send again in Polish', async () => {
    mockApi({
      link: (_c, n) =>
        n === 0
          ? HttpResponse.json(linkAnswer({ smsSent: true, url: undefined, claimCode: '482913' }))
          : errorAnswer(429, 'RATE_LIMITED', [], { 'Retry-After': n === 1 ? '3' : '25' }),
    });
    const el = await mount(html`<kyc-onboard lang="pl" sms></kyc-onboard>`);
    el.pollIntervals = [60_000];
    const pl = await dictionary('pl');
    await labelIs(el, 'familyName', pl.familyName);
    await type(el, 'familyName', 'Kowalska');
    const [year, month, day] = adultDateOfBirth().split('-') as [string, string, string];
    await type(el, 'dobDay', day);
    await type(el, 'dobMonth', month);
    await type(el, 'dobYear', year);
    await type(el, 'phoneNumber', '512 345 678');
    await check(el, 'consent');
    await check(el, 'sms');
    await submit(el);
    await waitState(el, 'sms-sent');
    await el.updateComplete;
    const alertText = () => el.shadowRoot!.querySelector('[role=alert]')?.textContent ?? '';
    button(el, pl.sendAgain)!.click();
    await until(() => alertText().includes('3 sekundy'), `3 sekundy (${alertText()})`);
    button(el, pl.sendAgain)!.click();
    await until(() => alertText().includes('25 sekund;'), `25 sekund (${alertText()})`);
    el.remove();
  });
});
