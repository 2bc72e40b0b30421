/**
 * The sandbox never passes for production, in workerd: a worker
 * deployed with a public PUBLIC_ORIGIN but no KYC_BASE_URL (or a misspelt
 * one) and no DEMO refuses every /api route with 500 MISCONFIGURED naming
 * KYC_BASE_URL and makes no sandbox link; with DEMO=on set on purpose the
 * sandbox works and what it produces says `livemode: false` (result token and
 * webhook); with a real (fake) vendor the token says `livemode: true`.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { adultDateOfBirth } from '../support/dates';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';
import * as wait from '../support/wait';

const PUBLIC = 'https://kyc.example.com';
const SHOP = 'https://shop.example';
const person = () => ({
  name: { givenName: 'Lia', familyName: 'Mode' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
  customerRef: 'acct-live',
});

const started: { dispose: () => Promise<void> }[] = [];
after(async () => {
  for (const s of started) await s.dispose();
});

async function worker(vars: Record<string, string>): Promise<MiniflareWorker> {
  const w = await startMiniflareWorker({ vars });
  started.push(w);
  return w;
}

const post = (w: MiniflareWorker, path: string, origin: string, body: unknown) =>
  fetch(`${w.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: origin }, body: JSON.stringify(body) });

interface ErrorObject {
  errorCode: string;
  errorMsg: string;
  issues: { issue: string; issueLocation: string }[];
}

async function assertMisconfigured(res: Response, what: string): Promise<void> {
  assert.equal(res.status, 500, what);
  const body = (await res.json()) as ErrorObject & { url?: string };
  assert.equal(body.errorCode, 'MISCONFIGURED', what);
  assert.ok(
    body.issues.some((i) => i.issueLocation === 'KYC_BASE_URL'),
    `${what}: names KYC_BASE_URL (${JSON.stringify(body.issues)})`,
  );
  assert.match(body.errorMsg, /KYC_BASE_URL/, what);
  assert.equal(body.url, undefined, `${what}: no link`);
}

async function until<T>(what: string, get: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const seen = await wait.until(async () => ((v) => v !== undefined && { v })(await get()), { what, timeoutMs: ms });
  return seen.v;
}

describe('a deployed worker without a vendor fails closed, in workerd', () => {
  it('non-loopback PUBLIC_ORIGIN, no KYC_BASE_URL, no DEMO: 500 MISCONFIGURED on every /api route, no sandbox link, the log says why', async () => {
    const w = await worker({ PUBLIC_ORIGIN: PUBLIC, ALLOWED_ORIGINS: SHOP });
    await assertMisconfigured(await post(w, '/api/onboarding-link', SHOP, person()), '/api/onboarding-link');
    await assertMisconfigured(await post(w, '/api/result', SHOP, { session: 'x'.repeat(40) }), '/api/result');
    await assertMisconfigured(await fetch(`${w.url}/api/ruok`), '/api/ruok');
    // No sandbox behind it either: its hosted pages and vendor API are not there.
    assert.equal((await fetch(`${w.url}/sandbox/flow/anything`)).status, 404);
    const lines = w.logs.filter((l) => l.includes('"route"')).map((l) => JSON.parse(l.slice(l.indexOf('{'))) as Record<string, unknown>);
    const link = lines.find((l) => l.route === '/api/*' && l.method === 'POST');
    assert.ok(link, `a log line for the refused link request:\n${w.logs.join('\n')}`);
    assert.deepEqual(link.missing, ['KYC_BASE_URL']);
    assert.equal(link.level, 'error');
    // Never asked the (in-process) vendor.
    assert.ok(
      lines.every((l) => l.vendorStatus === undefined),
      'no vendor call was made',
    );
  });

  it('a misspelt KYC_BASE_URL (not a URL, not "sandbox") fails closed too', async () => {
    const w = await worker({ KYC_BASE_URL: 'sandox', KYC_API_KEY: 'k', KYC_CUSTOMER_ID: 'c', SESSION_SECRET: 's'.repeat(32) });
    await assertMisconfigured(await post(w, '/api/onboarding-link', w.url, person()), 'misspelt: /api/onboarding-link');
    await assertMisconfigured(await fetch(`${w.url}/api/ruok`), 'misspelt: /api/ruok');
  });
});

describe('livemode, in workerd', () => {
  let vendor: FakeVendor | undefined;
  after(async () => {
    await vendor?.close();
  });

  it('DEMO=on on purpose: the sandbox works deployed, and its token and webhook say livemode false', async () => {
    // A deployed demo sends webhooks only over https, so the event is read where the
    // demo partner's own receiver inside the worker recorded it (signature checked there).
    const w = await worker({ PUBLIC_ORIGIN: PUBLIC, DEMO: 'on', RESULT_POLL_SECONDS: '5' });
    const res = await post(w, '/api/onboarding-link', PUBLIC, person()); // the deployed demo's own page: demo partner A
    assert.equal(res.status, 200, await res.clone().text());
    const link = (await res.json()) as { url: string; session: string; verificationId: string };
    const flow = await fetch(link.url, { method: 'POST', body: new URLSearchParams({ outcome: 'complete' }), redirect: 'manual' });
    assert.equal(flow.status, 303);
    const token = await until('a result token', async () => {
      const r = await post(w, '/api/result', PUBLIC, { session: link.session });
      assert.equal(r.status, 200);
      return ((await r.json()) as { resultToken?: string }).resultToken;
    });
    const claims = decodeJwt(token);
    assert.equal(claims.sub, link.verificationId);
    assert.equal(claims.livemode, false, 'a sandbox outcome is not live');
    const delivery = await until('the webhook', async () => {
      const r = await fetch(`${w.url}/sandbox/demo-webhooks/${link.verificationId}`);
      const body = (await r.json()) as { deliveries?: { type: string; livemode?: boolean }[] };
      return body.deliveries?.[0];
    });
    assert.equal(delivery.type, 'verification.completed');
    assert.equal(delivery.livemode, false);
  });

  it('a real (fake) vendor: the token says livemode true', async () => {
    vendor = await startFakeVendor();
    const w = await worker({ KYC_BASE_URL: vendor.url, KYC_API_KEY: 'k-live', KYC_CUSTOMER_ID: 'c-live', SESSION_SECRET: 's'.repeat(32) });
    const res = await post(w, '/api/onboarding-link', w.url, person());
    assert.equal(res.status, 200, await res.clone().text());
    const link = (await res.json()) as { session: string; verificationId: string };
    const r = await post(w, '/api/result', w.url, { session: link.session, checkId: 'chk-1' });
    assert.equal(r.status, 200);
    const answer = (await r.json()) as { checkStatus: string; resultToken?: string };
    assert.equal(answer.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.ok(answer.resultToken, 'a final status has a token');
    assert.equal(decodeJwt(answer.resultToken).livemode, true);
    assert.ok(
      vendor.requests.some((q) => q.path.startsWith('/idv/v2/idvalidate/result')),
      'the vendor was asked',
    );
  });
});

describe('malformed webhook and session settings fail closed, in workerd', () => {
  const HOOK_SECRET = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
  const cases: { name: string; setting: string; vars: Record<string, string>; without?: string[] }[] = [
    {
      name: 'a WEBHOOK_SECRET without the whsec_ form',
      setting: 'WEBHOOK_SECRET',
      vars: { WEBHOOK_URL: 'https://hooks.example/kyc', WEBHOOK_SECRET: 'hunter2' },
    },
    {
      name: 'a WEBHOOK_URL typo (htps://)',
      setting: 'WEBHOOK_URL',
      vars: { WEBHOOK_URL: 'htps://hooks.example/kyc', WEBHOOK_SECRET: HOOK_SECRET },
    },
    {
      name: 'plain http to a public host',
      setting: 'WEBHOOK_URL',
      vars: { WEBHOOK_URL: 'http://hooks.example/kyc', WEBHOOK_SECRET: HOOK_SECRET },
    },
    {
      name: 'no WEBHOOK_QUEUE binding while webhooks are configured',
      setting: 'WEBHOOK_QUEUE',
      vars: { WEBHOOK_URL: 'https://hooks.example/kyc', WEBHOOK_SECRET: HOOK_SECRET },
      without: ['WEBHOOK_QUEUE'],
    },
    { name: 'a SESSION_SECRET under 32 bytes', setting: 'SESSION_SECRET', vars: { SESSION_SECRET: 'short-Qz7' } },
  ];
  for (const c of cases) {
    it(`${c.name}: 500 MISCONFIGURED naming ${c.setting} on ruok, the link route and /v1, and a line in /ops`, async () => {
      const w = await startMiniflareWorker({ vars: c.vars, ...(c.without ? { without: c.without } : {}) });
      started.push(w);
      const answers = {
        '/api/ruok': await fetch(`${w.url}/api/ruok`),
        '/api/onboarding-link': await post(w, '/api/onboarding-link', w.url, person()),
        '/v1/verifications': await fetch(`${w.url}/v1/verifications`, { headers: { Authorization: 'Bearer kyc_sk_test_x' } }),
      };
      for (const [route, res] of Object.entries(answers)) {
        assert.equal(res.status, 500, `${route}: ${c.name}`);
        const body = (await res.json()) as ErrorObject;
        assert.equal(body.errorCode, 'MISCONFIGURED', route);
        assert.deepEqual(
          body.issues.map((i) => i.issueLocation),
          [c.setting],
          `${route} names ${c.setting} alone (${JSON.stringify(body.issues)})`,
        );
        assert.ok(!JSON.stringify(body).includes(c.vars[c.setting] ?? '\u0000'), `${route}: never the value`);
      }
      const ops = await (await fetch(`${w.url}/ops`)).text();
      assert.match(ops, new RegExp(`Misconfigured: ${c.setting}`), 'the console says so');
    });
  }
  it('a well-formed webhook (loopback http with the local sandbox) and a long SESSION_SECRET pass', async () => {
    const w = await startMiniflareWorker({
      vars: { WEBHOOK_URL: 'http://127.0.0.1:9/hooks', WEBHOOK_SECRET: HOOK_SECRET, SESSION_SECRET: 's'.repeat(32) },
    });
    started.push(w);
    assert.equal((await fetch(`${w.url}/api/ruok`)).status, 200);
  });
});
