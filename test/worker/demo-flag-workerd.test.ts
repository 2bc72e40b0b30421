/**
 * DEMO and the own origin, in workerd with the built assets (issue 15): with a
 * real vendor DEMO is off by default, `/` is a plain page (not the fictional
 * bank) and a POST from the worker's own origin is refused whatever
 * ALLOWED_ORIGINS says; with DEMO=on the demo's banner says the vendor is
 * real; with the sandbox, the demo and its "nothing real" banner are served,
 * and DEMO=off turns both off there too.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { ROOT, startWorker, type RunningWorker } from '../support/wrangler';
import { adultDateOfBirth } from '../support/dates';

const PARTNER = 'https://partner.example';
const person = {
  name: { givenName: 'Ana', familyName: 'Lima' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};
const SANDBOX_BANNER = 'no text message leaves this server';
const REAL_BANNER = 'text messages go to real phones';

let vendor: FakeVendor;
let real: RunningWorker; // real vendor, DEMO unset
let realDemo: RunningWorker; // real vendor, DEMO=on
let sandbox: RunningWorker; // sandbox, DEMO unset (on)
let sandboxOff: RunningWorker; // sandbox, DEMO=off

before(async () => {
  assert.ok(existsSync(join(ROOT, 'dist/public/index.html')), 'these tests serve the built demo: run `npm run build` first');
  vendor = await startFakeVendor();
  const vendorVars = {
    KYC_BASE_URL: vendor.url,
    KYC_API_KEY: 'demo-flag-key',
    KYC_CUSTOMER_ID: 'cust-d',
    SESSION_SECRET: 'demo-flag-secret-1234567890-xxxx',
    ALLOWED_ORIGINS: PARTNER,
  };
  [real, realDemo, sandbox, sandboxOff] = await Promise.all([
    startWorker({ vars: vendorVars }),
    startWorker({ vars: { ...vendorVars, DEMO: 'on' } }),
    startWorker({ vars: {} }),
    startWorker({ vars: { DEMO: 'off' } }),
  ]);
});
after(async () => {
  await Promise.all([real, realDemo, sandbox, sandboxOff].map((w) => w?.stop()));
  await vendor?.close();
});

const post = (w: RunningWorker, origin: string) =>
  fetch(`${w.url}/api/onboarding-link`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: origin },
    body: JSON.stringify(person),
  });

describe('DEMO and the own origin, in workerd', () => {
  it('with a real vendor, / is a plain page, not the demo', async () => {
    const res = await fetch(`${real.url}/`);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.doesNotMatch(html, /Harbourline|<kyc-onboard|demo-assets/);
    assert.match(html, /identity-verification service/);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    // /index.html does not reach the demo either (the assets redirect it to /).
    const index = await fetch(`${real.url}/index.html`);
    assert.doesNotMatch(await index.text(), /Harbourline/);
  });

  it('with a real vendor, a POST from the own origin is refused (403) before the vendor is called; the partner origin passes', async () => {
    vendor.requests.length = 0;
    const own = await post(real, real.url);
    assert.equal(own.status, 403);
    assert.equal(((await own.json()) as { errorCode: string }).errorCode, 'ORIGIN_NOT_ALLOWED');
    assert.equal(vendor.requests.length, 0);
    const partner = await post(real, PARTNER);
    assert.equal(partner.status, 200, await partner.clone().text());
    assert.equal(vendor.requests.length, 1);
  });

  it('with a real vendor and DEMO=on, the demo is served and its banner says the vendor is real', async () => {
    const res = await fetch(`${realDemo.url}/`);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /<kyc-onboard/);
    assert.ok(html.includes(REAL_BANNER), 'the banner says checks and texts are real');
    assert.ok(!html.includes(SANDBOX_BANNER), 'no "nothing leaves this server" claim');
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/, 'the demo keeps its CSP');
  });

  it('with the sandbox, the demo is served with its sandbox banner and the own origin is a demo partner', async () => {
    const res = await fetch(`${sandbox.url}/`);
    const html = await res.text();
    assert.match(html, /<kyc-onboard/);
    assert.ok(html.includes(SANDBOX_BANNER));
    assert.equal((await post(sandbox, sandbox.url)).status, 200);
  });

  it('with the sandbox and DEMO=off, / is the plain page and the own origin is no partner', async () => {
    const html = await (await fetch(`${sandboxOff.url}/`)).text();
    assert.doesNotMatch(html, /Harbourline|<kyc-onboard/);
    assert.equal((await post(sandboxOff, sandboxOff.url)).status, 403);
  });
});
