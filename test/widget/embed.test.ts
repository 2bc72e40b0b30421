// Embedding: localisation and RTL, theming, style isolation and no global side effects,
// Turnstile only when asked for, custom states, defining twice.
import { expect, fixtureCleanup, html } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { HttpResponse } from 'msw';
import { defineKycOnboard, KycOnboard } from '../../widget/index.js';
import {
  $,
  check,
  countRole,
  fillValid,
  labelIs,
  linkAnswer,
  mockApi,
  mount,
  reachSmsSent,
  submit,
  text,
  until,
  waitState,
} from './helpers.js';

const colorScheme = (scheme: 'light' | 'dark') => executeServerCommand('color-scheme', scheme);

afterEach(async () => {
  fixtureCleanup();
  sessionStorage.clear();
  document.documentElement.lang = '';
  await colorScheme('light');
});

describe('<kyc-onboard> localisation', () => {
  it('renders Arabic right-to-left', async () => {
    mockApi();
    const el = await mount(html`<kyc-onboard lang="ar"></kyc-onboard>`);
    await labelIs(el, 'familyName', 'اسم العائلة');
    const base = $<HTMLElement>(el, '[part=base]');
    expect(base.dir).to.equal('rtl');
    expect(base.lang).to.equal('ar');
    expect(getComputedStyle($(el, '#familyName')).direction).to.equal('rtl');
    expect(await countRole('textbox', 'اسم العائلة')).to.equal(1);
    expect(await countRole('button', 'تحقق من هويتي')).to.equal(1);
    // Layout is mirrored: the country code sits to the right of the number, labels start at the right edge.
    const code = $(el, '#phoneCode').getBoundingClientRect();
    const number = $(el, '#phoneNumber').getBoundingClientRect();
    expect(code.left).to.be.greaterThan(number.left);
    const form = $(el, 'form').getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents($(el, 'label[for=familyName]'));
    const label = range.getBoundingClientRect(); // the text itself, not the (full-width) label box
    expect(form.right - label.right).to.be.lessThan(2);
    expect(label.left - form.left).to.be.greaterThan(20);
    await expect(el).to.be.accessible();
  });

  it('falls back from the lang attribute to <html lang>, then to English', async () => {
    mockApi();
    document.documentElement.lang = 'fr-CA';
    const fr = await mount();
    await labelIs(fr, 'familyName', 'Nom de famille');
    fixtureCleanup();
    const de = await mount(html`<kyc-onboard lang="de-AT"></kyc-onboard>`);
    await until(() => $(de, 'button[type=submit]').textContent === 'Identität bestätigen', 'German');
    fixtureCleanup();
    const es = await mount(html`<kyc-onboard lang="es"></kyc-onboard>`);
    await labelIs(es, 'givenName', 'Nombre (si tiene)');
    fixtureCleanup();
    document.documentElement.lang = 'xx';
    const unknown = await mount();
    expect($(unknown, 'label[for=familyName]').textContent).to.equal('Family name');
  });

  it('follows a lang change, and partners can override any string', async () => {
    mockApi();
    const el = await mount(html`<kyc-onboard .strings=${{ submit: 'Start my check', familyName: 'Surname' }}></kyc-onboard>`);
    expect($(el, 'button[type=submit]').textContent).to.equal('Start my check');
    expect($(el, 'label[for=familyName]').textContent).to.equal('Surname');
    el.setAttribute('lang', 'de');
    await until(() => $(el, 'legend').textContent === 'Geburtsdatum', 'German');
    expect($(el, 'button[type=submit]').textContent).to.equal('Start my check');
  });

  it('formats the link expiry with Intl in the page language', async () => {
    const expiry = new Date(Date.now() + 15 * 60_000);
    mockApi({
      link: () => HttpResponse.json(linkAnswer({ smsSent: true, urlExpiry: expiry.toISOString() })),
      result: () => HttpResponse.json({ checkStatus: 'CHECKING' }),
    });
    const el = await mount(html`<kyc-onboard sms lang="de"></kyc-onboard>`);
    el.pollIntervals = [60_000];
    await reachSmsSent(el);
    expect(text(el)).to.contain(`Gültig bis ${new Intl.DateTimeFormat('de', { timeStyle: 'short' }).format(expiry)}.`);
    expect(text(el)).to.contain('Erneut senden');
  });
});

describe('<kyc-onboard> theming and isolation', () => {
  it('has working defaults, --kyc-* custom properties and ::part', async () => {
    mockApi();
    const style = document.createElement('style');
    style.textContent = `
      .themed { --kyc-color-primary: rgb(1, 2, 3); --kyc-radius: 3px; }
      .themed::part(input) { border-color: rgb(9, 8, 7); }
    `;
    document.head.append(style);
    try {
      const plain = await mount();
      expect(getComputedStyle($(plain, 'button[type=submit]')).backgroundColor).to.equal('rgb(29, 78, 216)');
      expect(getComputedStyle(plain).backgroundColor).to.equal('rgb(255, 255, 255)');
      fixtureCleanup();
      const el = await mount(html`<kyc-onboard class="themed"></kyc-onboard>`);
      const button = getComputedStyle($(el, 'button[type=submit]'));
      expect(button.backgroundColor).to.equal('rgb(1, 2, 3)');
      expect(button.borderTopLeftRadius).to.equal('3px');
      expect(getComputedStyle($(el, '#familyName')).borderTopColor).to.equal('rgb(9, 8, 7)');
    } finally {
      style.remove();
    }
  });

  it('follows prefers-color-scheme, and theme="light" / theme="dark" override it', async function () {
    mockApi();
    // WebDriver classic (WebKitGTK) cannot emulate a colour scheme: its driver answers null.
    if ((await colorScheme('dark')) === 'unsupported') this.skip();
    const auto = await mount();
    expect(getComputedStyle(auto).backgroundColor).to.equal('rgb(22, 24, 29)');
    await expect(auto).to.be.accessible(); // contrast holds in dark too
    auto.setAttribute('theme', 'light');
    expect(getComputedStyle(auto).backgroundColor).to.equal('rgb(255, 255, 255)');
    await colorScheme('light');
    auto.setAttribute('theme', 'dark');
    expect(getComputedStyle(auto).backgroundColor).to.equal('rgb(22, 24, 29)');
  });

  it('no styles leak in or out; no global side effects', async () => {
    mockApi();
    const style = document.createElement('style');
    style.textContent = 'input, label, button { color: rgb(255, 0, 0) !important; font-size: 40px !important; }';
    document.head.append(style);
    const headBefore = document.head.children.length;
    const globalsBefore = Object.keys(window).length;
    const sheetsBefore = document.adoptedStyleSheets.length;
    const htmlAttrs = document.documentElement.getAttributeNames().join();
    try {
      const el = await mount();
      const label = getComputedStyle($(el, 'label[for=familyName]'));
      expect(label.color).not.to.equal('rgb(255, 0, 0)');
      expect(label.fontSize).not.to.equal('40px');
      // Out: the page's own inputs are untouched by the widget's styles.
      const outside = document.createElement('input');
      document.body.append(outside);
      expect(getComputedStyle(outside).borderTopColor).not.to.equal('rgb(123, 129, 144)');
      outside.remove();
      expect(document.head.children.length).to.equal(headBefore);
      expect(document.adoptedStyleSheets.length).to.equal(sheetsBefore);
      expect(Object.keys(window).length).to.equal(globalsBefore);
      expect(document.documentElement.getAttributeNames().join()).to.equal(htmlAttrs);
      // No inline style attributes anywhere in the shadow tree (strict CSP).
      expect(el.shadowRoot!.querySelectorAll('[style]').length).to.equal(0);
      expect(el.hasAttribute('style')).to.equal(false);
    } finally {
      style.remove();
    }
  });

  it('reflects every state as the host attribute and a custom state', async () => {
    mockApi();
    const el = await mount();
    expect(el.getAttribute('state')).to.equal('idle');
    expect(el.matches(':state(idle)')).to.equal(true);
    el.navigate = () => {};
    await fillValid(el);
    await submit(el);
    await waitState(el, 'redirecting');
    expect(el.getAttribute('state')).to.equal('redirecting');
    expect(el.matches(':state(redirecting)')).to.equal(true);
    expect(el.matches(':state(idle)')).to.equal(false);
  });
});

describe('<kyc-onboard> Turnstile', () => {
  afterEach(() => {
    delete (window as { turnstile?: unknown }).turnstile;
    document.querySelectorAll('script[data-kyc-turnstile]').forEach((s) => s.remove());
  });

  it('loads nothing without turnstile-sitekey', async () => {
    const calls = mockApi();
    const el = await mount();
    el.navigate = () => {};
    await fillValid(el);
    await submit(el);
    await waitState(el, 'redirecting');
    expect(document.querySelector('script[src*="challenges.cloudflare.com"]')).to.equal(null);
    expect(el.querySelector('[slot=turnstile]')).to.equal(null);
    expect(performance.getEntriesByType('resource').some((r) => r.name.includes('challenges.cloudflare.com'))).to.equal(false);
    expect(calls.link[0]!.body).not.to.have.property('turnstileToken');
  });

  it('with turnstile-sitekey: loads the script lazily, renders into a light-DOM slot child', async () => {
    mockApi();
    const el = await mount(html`<kyc-onboard turnstile-sitekey="0xSITE"></kyc-onboard>`);
    // The glue is a chunk of its own, fetched only because a site key is set.
    await until(() => !!document.querySelector('script[data-kyc-turnstile]'), 'Turnstile script');
    const script = document.querySelector<HTMLScriptElement>('script[data-kyc-turnstile]');
    expect(script?.src).to.equal('https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit');
    expect(el.querySelector('[slot=turnstile]')).to.exist;
    expect(el.shadowRoot!.querySelector('slot[name=turnstile]')).to.exist;
  });

  it('sends the Turnstile token (stub window.turnstile), and waits for it', async () => {
    const calls = mockApi();
    let rendered: { el: Element; opts: Record<string, unknown> } | undefined;
    const resets: unknown[] = [];
    (window as { turnstile?: unknown }).turnstile = {
      render: (target: Element, opts: Record<string, unknown>) => {
        rendered = { el: target, opts };
        return 'widget-1';
      },
      reset: (id: unknown) => resets.push(id),
    };
    const el = await mount(html`<kyc-onboard turnstile-sitekey="0xSITE"></kyc-onboard>`);
    el.navigate = () => {};
    await until(() => !!rendered, 'Turnstile rendered');
    expect(rendered?.opts.sitekey).to.equal('0xSITE');
    expect(rendered?.opts.action).to.equal('kyc-onboarding-link');
    expect(rendered?.el.parentElement).to.equal(el);
    expect(rendered?.el.getAttribute('slot')).to.equal('turnstile');
    expect(document.querySelector('script[data-kyc-turnstile]')).to.equal(null);
    await fillValid(el);
    // No token yet: no request.
    await submit(el);
    expect(calls.link.length).to.equal(0);
    expect(text(el)).to.contain('Please complete the security check.');
    (rendered!.opts.callback as (t: string) => void)('tok-123');
    await submit(el);
    await waitState(el, 'redirecting');
    expect(calls.link[0]!.body.turnstileToken).to.equal('tok-123');
    expect(resets).to.deep.equal(['widget-1']);
  });

  it('an expired phone link is renewed only with a fresh token: until then it says so and offers Start again', async () => {
    const qr = { size: 21, modules: btoa('\0'.repeat(56)) };
    const calls = mockApi({
      link: (_call, n) =>
        HttpResponse.json(
          n === 0
            ? linkAnswer({
                url: 'https://kyc.example/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=aaaaaaaaaaaaaaaaaaaaaa',
                qr,
                session: 's1',
                urlExpiry: new Date(Date.now() - 1000).toISOString(),
              })
            : linkAnswer({ url: 'https://kyc.example/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=bbbbbbbbbbbbbbbbbbbbbb', qr, session: 's2' }),
        ),
    });
    let solved: ((t: string) => void) | undefined;
    (window as { turnstile?: unknown }).turnstile = {
      render: (_target: Element, opts: Record<string, unknown>) => ((solved = opts.callback as (t: string) => void), 'widget-1'),
      reset: () => undefined,
    };
    const el = await mount(html`<kyc-onboard turnstile-sitekey="0xSITE"></kyc-onboard>`);
    el.pollIntervals = [10];
    await until(() => !!solved, 'Turnstile rendered');
    solved!('tok-1');
    await fillValid(el);
    await check(el, 'phone');
    await submit(el);
    // The token went with the first link (and was reset); the link has expired; no new token yet.
    await until(() => text(el).includes('The link has expired.'), 'says the link has expired');
    expect(calls.link.length).to.equal(1, 'no new link asked for without a token');
    expect(el.state).to.equal('handoff');
    expect(el.shadowRoot!.querySelector('svg[part~="qr"]')).to.equal(null, 'no dead QR code on screen');
    await expect(el).to.be.accessible();
    solved!('tok-2');
    await until(() => calls.link.length === 2, 'renewed once a token is there');
    expect(calls.link[1]!.body).to.deep.include({ session: 's1', turnstileToken: 'tok-2' });
    await until(
      () => el.shadowRoot!.querySelector<HTMLInputElement>('#handoff-link')?.value.endsWith('bbbbbbbbbbbbbbbbbbbbbb') === true,
      'the new link shown',
    );
    el.remove();
  });
});

describe('<kyc-onboard> registration', () => {
  it('defining twice (and loading a second copy of the bundle) does not throw', async () => {
    defineKycOnboard();
    defineKycOnboard();
    expect(customElements.get('kyc-onboard')).to.equal(KycOnboard);
    const bundle = '/dist/widget/kyc-onboard.js?second-copy';
    const mod = (await import(/* @vite-ignore */ bundle)) as { KycOnboard: unknown; defineKycOnboard: () => void };
    mod.defineKycOnboard();
    expect(mod.KycOnboard).not.to.equal(KycOnboard);
    expect(customElements.get('kyc-onboard')).to.equal(KycOnboard);
  });

  it('the bundle brings every translation (packed at build time, a chunk each beside it)', async () => {
    const bundle = '/dist/widget/kyc-onboard.js?translations';
    const mod = (await import(/* @vite-ignore */ bundle)) as { KycOnboard: CustomElementConstructor };
    customElements.define('kyc-onboard-bundle-copy', mod.KycOnboard);
    const expected: Record<string, [string, string]> = {
      ar: ['اسم العائلة', 'تحقق من هويتي'],
      de: ['Nachname', 'Identität bestätigen'],
      es: ['Apellido', 'Verificar mi identidad'],
      fr: ['Nom de famille', 'Vérifier mon identité'],
      en: ['Family name', 'Verify my identity'],
    };
    for (const [lang, [family, submitLabel]] of Object.entries(expected)) {
      const el = document.createElement('kyc-onboard-bundle-copy') as KycOnboard;
      el.setAttribute('lang', lang);
      document.body.append(el);
      await labelIs(el, 'familyName', family); // a chunk beside the bundle (English is built in)
      expect($(el, 'button[type=submit]').textContent, lang).to.equal(submitLabel);
      expect($(el, '#familyName-error').textContent, lang).to.equal('');
      el.remove();
    }
  });
});
