// A partner page under a strict Content-Security-Policy (`default-src 'self'`, no 'unsafe-inline'):
// the self-contained bundle still renders, is styled, submits, and draws the handoff QR code. The page is served by the
// test-runner config (/__csp/page.html) with the CSP as a response header.
import { expect, waitUntil } from '@open-wc/testing';
import type { KycOnboard } from '../../widget/index.js';
import { adultDateOfBirth } from '../support/dates.js';
import { countRole } from './helpers.js';

describe('<kyc-onboard> under a strict CSP', () => {
  it('renders, is styled, submits, and causes no CSP violation', async () => {
    const frame = document.createElement('iframe');
    frame.src = '/__csp/page.html';
    frame.style.width = '600px';
    frame.style.height = '900px';
    const loaded = new Promise((r) => frame.addEventListener('load', r, { once: true }));
    document.body.append(frame);
    await loaded;
    const win = frame.contentWindow as Window & typeof globalThis & { __violations: string[] };
    const res = await fetch('/__csp/page.html');
    expect(res.headers.get('content-security-policy')).to.equal("default-src 'self'");

    await waitUntil(() => win.customElements.get('kyc-onboard'), 'bundle defined the element', { timeout: 8000 });
    const el = win.document.querySelector('kyc-onboard') as KycOnboard;
    await el.updateComplete;
    const root = el.shadowRoot!;
    expect(root.querySelector('form')).to.exist;
    // Styles apply (adopted stylesheets are not inline styles).
    const button = root.querySelector<HTMLButtonElement>('button[type=submit]')!;
    expect(win.getComputedStyle(button).backgroundColor).to.equal('rgb(29, 78, 216)');
    expect(await countRole('textbox', 'Family name', 'iframe')).to.equal(1);
    // The bundle leaves no Lit globals on the page.
    expect('litHtmlVersions' in win || 'litElementVersions' in win || 'reactiveElementVersions' in win).to.equal(false);

    const fillIn = (r: ShadowRoot) => {
      const set = (id: string, value: string) => {
        const input = r.querySelector<HTMLInputElement>(`#${id}`)!;
        input.value = value;
        input.dispatchEvent(new win.Event('input', { bubbles: true, composed: true }));
      };
      set('familyName', 'Citizen');
      const [year, month, day] = adultDateOfBirth().split('-');
      set('dobDay', day!);
      set('dobMonth', month!);
      set('dobYear', year!);
      set('phoneNumber', '0400 000 001');
      r.querySelector<HTMLInputElement>('#consent')!.click();
    };
    fillIn(root);
    let redirectUrl = '';
    el.addEventListener('kyc-redirect', (e) => {
      e.preventDefault();
      redirectUrl = (e as CustomEvent<{ url: string }>).detail.url;
    });
    await el.updateComplete;
    button.click();
    await waitUntil(() => el.getAttribute('state') === 'redirecting', 'redirecting', { timeout: 8000 });
    expect(redirectUrl).to.equal('https://hosted.example/flow/abc');
    const requests = (await (await fetch('/__csp/requests')).json()) as { body: { name: { familyName: string } }; key: string }[];
    expect(requests.at(-1)!.body.name.familyName).to.equal('Citizen');
    expect(requests.at(-1)!.key).to.be.a('string').and.not.equal('');
    expect(win.__violations).to.deep.equal([]);

    // "Continue on my phone": the QR code is drawn (an SVG path from data) under the same CSP.
    win.sessionStorage.clear();
    const phone = win.document.createElement<'kyc-onboard'>('kyc-onboard');
    phone.pollIntervals = [60_000];
    for (const a of el.getAttributeNames()) if (a !== 'state') phone.setAttribute(a, el.getAttribute(a)!);
    win.document.body.append(phone);
    await phone.updateComplete;
    fillIn(phone.shadowRoot!);
    phone.shadowRoot!.querySelector<HTMLInputElement>('#phone')!.click();
    await phone.updateComplete;
    phone.shadowRoot!.querySelector<HTMLButtonElement>('button[type=submit]')!.click();
    await waitUntil(() => phone.getAttribute('state') === 'handoff', 'handoff', { timeout: 8000 });
    await phone.updateComplete;
    const qr = phone.shadowRoot!.querySelector<SVGSVGElement>('svg[part~="qr"]')!;
    expect(qr.querySelector('path')!.getAttribute('d')!.length).to.be.greaterThan(100);
    expect(qr.getBoundingClientRect().width).to.be.greaterThan(100);
    expect(win.__violations).to.deep.equal([]);

    // Another language: the bundle imports its dictionary file (`kyc-onboard-<code>-<hash>.js`, beside it) under the same CSP.
    win.sessionStorage.clear();
    const he = win.document.createElement<'kyc-onboard'>('kyc-onboard');
    he.setAttribute('endpoint', '/__csp/api');
    win.document.body.append(he);
    win.document.documentElement.lang = 'he';
    const label = () => he.shadowRoot!.querySelector('label[for=familyName]')?.textContent;
    await waitUntil(() => label() === 'שם משפחה', `Hebrew label (is ${label()})`, { timeout: 8000 });
    expect(he.shadowRoot!.querySelector<HTMLElement>('[part=base]')!.dir).to.equal('rtl');
    const dictionaries = win.performance
      .getEntriesByType('resource')
      .map((r) => new URL(r.name).pathname)
      .filter((p) => /\/kyc-onboard-he-/.test(p));
    expect(dictionaries).to.have.length(1);
    expect(dictionaries[0]).to.match(/^\/dist\/widget\/kyc-onboard-he-[A-Z2-7]{8}\.js$/);
    expect(win.__violations).to.deep.equal([]);
    frame.remove();
  });
});
