/**
 * Partners in node (the real app through `app.request`, msw as the vendor and
 * as Turnstile's siteverify, an in-memory KV): resolution order, per-partner
 * credentials and settings, sealing (wrong key, moved values, rotation),
 * per-partner Turnstile with its hostname check, `/api/ruok?partner=`.
 * The same rules in workerd with a real KV binding: partners-workerd.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { http, HttpResponse } from 'msw';
import { decode } from 'hono/jwt';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { KVNamespace } from '@cloudflare/workers-types';
import type { Env } from '../../worker/lib/env';
import { buildRecord, removeRecord, writeRecord, type PartnerInput, type RegistryStore } from '../../worker/partners/admin';
import { partnerKey } from '../../worker/partners/partner';
import { DEMO_PARTNERS } from '../../worker/demo/partners';
import { clearPartnerCache, registryPartnerByOrigin } from '../../worker/partners/registry';
import { publicJwk } from '../../worker/partners/sealing';
import { webhookTarget } from '../../worker/verifications/webhook-target';
import { resetRuokCache } from '../../worker/browser-api/ruok';
import { baseEnv, call, okVendor, person, startHarness, stopHarness, vendor, vendorRequests, VENDOR, WORKER } from './harness';
import { nodeEnv } from '../support/node-env';

/** The subset of KVNamespace the worker uses, over a Map (and a RegistryStore over the same Map). */
function memoryKv(): { kv: KVNamespace; store: RegistryStore; data: Map<string, string> } {
  const data = new Map<string, string>();
  const kv = { get: async (k: string) => data.get(k) ?? null } as unknown as KVNamespace;
  const store: RegistryStore = {
    get: async (k) => data.get(k) ?? null,
    put: async (k, v) => void data.set(k, v),
    delete: async (k) => void data.delete(k),
    list: async (p) => [...data.keys()].filter((k) => k.startsWith(p)),
  };
  return { kv, store, data };
}

async function sealingKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
  return { ...(await exportJWK(privateKey)), kid };
}

const ALPHA = 'https://alpha.example';
const BETA = 'https://beta.example';
const KEY_A = 'alpha-vendor-key-7Hq2Lm9';
const KEY_B = 'beta-vendor-key-Xp4Rt8s';
const TS_VERIFY = 'https://turnstile.test/siteverify';

const alpha: PartnerInput = {
  displayName: 'Alpha Bank',
  origins: [ALPHA],
  childId: 'child-alpha',
  apiKey: KEY_A,
  flowId: 'flow-alpha',
  smsSenderName: 'Alpha',
  turnstileSecret: 'ts-secret-alpha-1',
};
const beta: PartnerInput = { displayName: 'Beta Credit', origins: [BETA], childId: 'child-beta', apiKey: KEY_B };

let k1: JWK;
let k2: JWK;
let reg: ReturnType<typeof memoryKv>;
let env: Env;

before(async () => {
  startHarness();
  k1 = await sealingKey('seal-1');
  k2 = await sealingKey('seal-2');
});
after(stopHarness);

beforeEach(async () => {
  clearPartnerCache();
  resetRuokCache();
  vendor(...okVendor, siteverify('alpha.example'));
  reg = memoryKv();
  for (const [id, input] of [
    ['alpha', alpha],
    ['beta', beta],
  ] as const) {
    await writeRecord(reg.store, await buildRecord(id, input, publicJwk(k1), { sandbox: false }));
  }
  env = { ...baseEnv, PARTNERS: reg.kv, PARTNER_SEALING_KEY: JSON.stringify(k1), TURNSTILE_VERIFY_URL: TS_VERIFY };
});

function siteverify(hostname: string, action = 'kyc-onboarding-link') {
  return http.post(TS_VERIFY, async ({ request }) => {
    const form = await request.formData();
    const ok = form.get('secret') === 'ts-secret-alpha-1' && (form.get('response') as string | null)?.startsWith('good-') === true;
    return HttpResponse.json({ success: ok, hostname, action, 'error-codes': [] });
  });
}

const link = (origin: string, body: unknown = person, e: Env = env, headers: Record<string, string> = {}) =>
  call('/api/onboarding-link', { method: 'POST', json: body, headers: { Origin: origin, ...headers } }, e);

describe('partner resolution and credentials', () => {
  it('sends each partner’s child ID, key, flow and SMS sender; never the other’s', async () => {
    const a = await link(ALPHA, { ...person, sendSMS: true, turnstileToken: 'good-1' });
    assert.equal(a.status, 200, a.text);
    const b = await link(BETA, { ...person, sendSMS: true });
    assert.equal(b.status, 200, b.text);
    const [va, vb] = vendorRequests.filter((r) => r.url.endsWith('/onboarding-url'));
    assert.equal(va!.headers['x-service-customerchildid'], 'child-alpha');
    assert.equal(va!.headers['api_key'], KEY_A);
    assert.equal(va!.headers['x-service-customerid'], 'cust-42', 'the operator’s customer ID');
    assert.equal((va!.body as any).flowId, 'flow-alpha');
    assert.equal((va!.body as any).senderName, 'Alpha');
    assert.equal(vb!.headers['x-service-customerchildid'], 'child-beta');
    assert.equal(vb!.headers['api_key'], KEY_B);
    // Beta has no flow or sender of its own: the environment's apply.
    assert.equal((vb!.body as any).flowId, baseEnv.KYC_FLOW_ID);
    assert.equal((vb!.body as any).senderName, baseEnv.KYC_SMS_SENDER_NAME);
    assert.equal((decode(a.json.session).payload as any).pid, 'alpha');
    assert.equal((decode(b.json.session).payload as any).pid, 'beta');
  });

  it('the registry comes before ALLOWED_ORIGINS; the environment’s partner keeps the rest', async () => {
    const e = { ...env, ALLOWED_ORIGINS: `${ALPHA}, https://partner.example` };
    await link(ALPHA, { ...person, turnstileToken: 'good-2' }, e);
    await link('https://partner.example', person, e);
    const [va, venv] = vendorRequests;
    assert.equal(va!.headers['api_key'], KEY_A);
    assert.equal(venv!.headers['api_key'], baseEnv.KYC_API_KEY);
    assert.equal(venv!.headers['x-service-customerchildid'], baseEnv.KYC_CUSTOMER_CHILD_ID);
  });

  it('an origin of no partner is 403 ORIGIN_NOT_ALLOWED (readable by that page only), without a vendor call', async () => {
    const res = await link('https://gamma.example');
    assert.equal(res.status, 403);
    assert.equal(res.json.errorCode, 'ORIGIN_NOT_ALLOWED');
    assert.equal(res.headers.get('Access-Control-Allow-Origin'), 'https://gamma.example');
    const ok = await link(BETA);
    assert.equal(ok.headers.get('Access-Control-Allow-Origin'), BETA);
    assert.equal(vendorRequests.length, 1);
  });

  it('a return URL must be on the partner’s own origins (or the worker’s)', async () => {
    const other = await link(BETA, { ...person, returnUrl: `${ALPHA}/done` });
    assert.equal(other.status, 400);
    assert.equal(other.json.issues[0].issueLocation, 'returnUrl');
    const own = await link(BETA, { ...person, returnUrl: `${WORKER}/handoff/x` });
    assert.equal(own.status, 200, own.text);
    assert.equal(vendorRequests.length, 1);
  });

  it('a removed partner is refused once the cache has let it go', async () => {
    const e = { ...env, PARTNERS_CACHE_SECONDS: '0' };
    assert.equal((await link(BETA, person, e)).status, 200);
    assert.ok(await removeRecord(reg.store, 'beta'));
    assert.equal((await link(BETA, person, e)).status, 403);
    assert.equal(reg.data.has(partnerKey('beta')), false);
  });
});

describe('the in-isolate cache', () => {
  it('reads KV once per origin per PARTNERS_CACHE_SECONDS (misses too), on a controlled clock', async () => {
    let reads = 0;
    const counting = { get: async (k: string) => (reads++, reg.data.get(k) ?? null) } as unknown as KVNamespace;
    const e = { ...env, PARTNERS: counting, PARTNERS_CACHE_SECONDS: '30' };
    const t0 = 1_000_000;
    assert.equal((await registryPartnerByOrigin(e, BETA, t0))?.id, 'beta');
    const first = reads; // the origin index, then the record
    assert.equal(first, 2);
    for (const dt of [1, 10_000, 29_999]) assert.equal((await registryPartnerByOrigin(e, BETA, t0 + dt))?.id, 'beta');
    assert.equal(reads, first, 'no KV read within the window');
    assert.equal(await registryPartnerByOrigin(e, 'https://nobody.example', t0), null);
    assert.equal(await registryPartnerByOrigin(e, 'https://nobody.example', t0 + 29_000), null);
    assert.equal(reads, first + 1, 'a miss is cached too');
    // Removed in KV: still served from the cache until the window ends, then gone.
    await removeRecord(reg.store, 'beta');
    assert.equal((await registryPartnerByOrigin(e, BETA, t0 + 29_999))?.id, 'beta');
    assert.equal(await registryPartnerByOrigin(e, BETA, t0 + 30_000), null);
  });
});

describe('the in-isolate cache under a flood of unknown origins', () => {
  it('keeps the partners it found: misses never evict them', async () => {
    clearPartnerCache();
    let reads = 0;
    const counting = { get: async (k: string) => (reads++, reg.data.get(k) ?? null) } as unknown as KVNamespace;
    const e = { ...env, PARTNERS: counting, PARTNERS_CACHE_SECONDS: '30' };
    const t0 = 2_000_000;
    assert.equal((await registryPartnerByOrigin(e, BETA, t0))?.id, 'beta');
    for (let i = 0; i < 2500; i++) await registryPartnerByOrigin(e, `https://flood-${i}.example`, t0 + 1);
    const before = reads;
    assert.equal((await registryPartnerByOrigin(e, BETA, t0 + 2))?.id, 'beta');
    assert.equal(reads, before, 'beta is still cached: no KV read');
  });
});

describe('isolation', () => {
  it('a session of partner A is refused from partner B’s origin, and from A’s origin once it moves to B', async () => {
    const a = await link(ALPHA, { ...person, turnstileToken: 'good-3' });
    const fromB = await call('/api/result', { method: 'POST', json: { session: a.json.session }, headers: { Origin: BETA } }, env);
    assert.equal(fromB.status, 403);
    assert.equal(fromB.json.errorCode, 'ORIGIN_NOT_ALLOWED');
    const fromA = await call('/api/result', { method: 'POST', json: { session: a.json.session }, headers: { Origin: ALPHA } }, env);
    assert.equal(fromA.status, 200, fromA.text);
    assert.equal(vendorRequests.at(-1)!.headers['api_key'], KEY_A);
    // Alpha's origin handed to beta: alpha's sessions do not follow it.
    await removeRecord(reg.store, 'alpha');
    await writeRecord(
      reg.store,
      await buildRecord('beta', { origins: [BETA, ALPHA] }, publicJwk(k1), {
        sandbox: false,
        previous: JSON.parse(reg.data.get(partnerKey('beta'))!),
      }),
    );
    clearPartnerCache();
    const moved = await call('/api/result', { method: 'POST', json: { session: a.json.session }, headers: { Origin: ALPHA } }, env);
    assert.equal(moved.status, 403);
  });

  it('an Idempotency-Key of partner A never replays A’s answer to partner B', async () => {
    const headers = { 'Idempotency-Key': 'shared-key-0001' };
    const a = await link(ALPHA, { ...person, turnstileToken: 'good-4' }, env, headers);
    const again = await link(ALPHA, { ...person, turnstileToken: 'good-5' }, env, headers);
    assert.equal(again.headers.get('Idempotent-Replayed'), 'true');
    const b = await link(BETA, { ...person, turnstileToken: 'good-4' }, env, headers);
    assert.equal(b.status, 200, b.text);
    assert.equal(b.headers.get('Idempotent-Replayed'), null);
    assert.notEqual(b.json.session, a.json.session);
    assert.equal((decode(b.json.session).payload as any).pid, 'beta');
    assert.deepEqual(
      vendorRequests.map((r) => r.headers['api_key']),
      [KEY_A, KEY_B],
    );
  });
});

describe('per-partner Turnstile', () => {
  it('checks the partner’s own secret, and the token’s hostname against the Origin', async () => {
    const missing = await link(ALPHA);
    assert.equal(missing.status, 400);
    assert.equal(missing.json.issues[0].issueLocation, 'turnstileToken');
    const bad = await link(ALPHA, { ...person, turnstileToken: 'bad-1' });
    assert.equal(bad.status, 403);
    // Beta has no Turnstile site (and the environment none): no check.
    assert.equal((await link(BETA)).status, 200);
    // A token solved on another site, sent with alpha's Origin, is refused.
    vendor(...okVendor, siteverify('evil.example'));
    const elsewhere = await link(ALPHA, { ...person, turnstileToken: 'good-6' });
    assert.equal(elsewhere.status, 403);
    assert.equal(elsewhere.json.errorCode, 'TURNSTILE_FAILED');
    // A token solved on the partner's page, for another of its forms (action), is refused.
    vendor(...okVendor, siteverify('alpha.example', 'login'));
    const otherForm = await link(ALPHA, { ...person, turnstileToken: 'good-7' });
    assert.equal(otherForm.status, 403);
    assert.equal(otherForm.json.errorCode, 'TURNSTILE_FAILED');
    assert.equal(vendorRequests.filter((r) => r.url.startsWith(VENDOR)).length, 0);
  });
});

describe('sealing', () => {
  it('stores no secret in the clear', () => {
    const all = [...reg.data.values()].join('\n');
    for (const secret of [KEY_A, KEY_B, 'ts-secret-alpha-1', KEY_A.slice(0, 12)])
      assert.ok(!all.includes(secret), 'a secret is in the registry');
  });

  it('a wrong or missing PARTNER_SEALING_KEY is 500 MISCONFIGURED, never a call', async () => {
    for (const PARTNER_SEALING_KEY of [JSON.stringify(k2), undefined, '{"kty":"oct"}', 'not json']) {
      clearPartnerCache();
      const res = await link(BETA, person, { ...env, PARTNER_SEALING_KEY });
      assert.equal(res.status, 500, String(PARTNER_SEALING_KEY));
      assert.equal(res.json.errorCode, 'MISCONFIGURED');
      assert.ok(!res.text.includes('PARTNER_SEALING_KEY'), 'the answer names no setting');
    }
    assert.equal(vendorRequests.length, 0);
  });

  it('a sealed value moved to another partner or field does not open', async () => {
    const a = JSON.parse(reg.data.get(partnerKey('alpha'))!);
    const b = JSON.parse(reg.data.get(partnerKey('beta'))!);
    reg.data.set(partnerKey('beta'), JSON.stringify({ ...b, apiKey: a.apiKey }));
    assert.equal((await link(BETA)).status, 500);
    reg.data.set(partnerKey('beta'), JSON.stringify({ ...b, turnstileSecret: b.apiKey }));
    clearPartnerCache();
    assert.equal((await link(BETA)).status, 500);
    assert.equal(vendorRequests.length, 0);
  });

  it('rotates: old and new key both open while it rotates, re-sealed values open with the new key alone', async () => {
    const both = { ...env, PARTNER_SEALING_KEY: JSON.stringify([k2, k1]) };
    assert.equal((await link(BETA, person, both)).status, 200);
    // Re-seal beta's secrets to the new key (the operator re-enters them).
    const prev = JSON.parse(reg.data.get(partnerKey('beta'))!);
    await writeRecord(reg.store, await buildRecord('beta', { apiKey: KEY_B }, publicJwk(k2), { sandbox: false, previous: prev }), prev);
    clearPartnerCache();
    assert.equal((await link(BETA, person, both)).status, 200);
    const onlyNew = { ...env, PARTNER_SEALING_KEY: JSON.stringify(k2) };
    clearPartnerCache();
    assert.equal((await link(BETA, person, onlyNew)).status, 200);
    // Alpha was not re-sealed: with the old key gone it stops, cleanly.
    assert.equal((await link(ALPHA, { ...person, turnstileToken: 'good-7' }, onlyNew)).status, 500);
    assert.deepEqual(
      vendorRequests.map((r) => r.headers['api_key']),
      [KEY_B, KEY_B, KEY_B],
    );
  });
});

describe('/api/ruok', () => {
  it('checks the operator’s credentials, or a named partner’s (for the operator only)', async () => {
    const ops = { ...env, OPS_TOKEN: 'ops-token-0123456789abcdef-0123456789' };
    const asOperator = { headers: { Authorization: 'Bearer ops-token-0123456789abcdef-0123456789' } };
    assert.equal((await call('/api/ruok', {}, env)).status, 200);
    assert.equal(vendorRequests.at(-1)!.headers['api_key'], baseEnv.KYC_API_KEY);
    // To anyone but the operator, a known and an unknown id answer alike (no enumeration), and the vendor is not asked.
    const known = await call('/api/ruok?partner=beta', {}, ops);
    const unknownToAnyone = await call('/api/ruok?partner=gamma', {}, ops);
    assert.deepEqual([known.status, known.json.errorCode, known.json.errorMsg], [404, 'NOT_FOUND', 'There is no such partner.']);
    assert.deepEqual(
      [unknownToAnyone.status, unknownToAnyone.json.errorCode, unknownToAnyone.json.errorMsg],
      [known.status, known.json.errorCode, known.json.errorMsg],
    );
    assert.equal((await call('/api/ruok?partner=beta', { headers: { Authorization: 'Bearer wrong' } }, ops)).status, 404);
    assert.equal(vendorRequests.length, 1);
    assert.equal((await call('/api/ruok?partner=beta', asOperator, ops)).status, 200);
    assert.equal(vendorRequests.at(-1)!.headers['api_key'], KEY_B);
    assert.equal(vendorRequests.at(-1)!.headers['x-service-customerchildid'], 'child-beta');
    const unknown = await call('/api/ruok?partner=gamma', asOperator, ops);
    assert.equal(unknown.status, 404);
    const bad = await call('/api/ruok?partner=Not_An_Id', asOperator, ops);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.issues[0].issueLocation, 'partner');
    assert.equal(vendorRequests.length, 2);
  });
});

describe('input validation of the registry writer', () => {
  it('refuses what is not an origin, a bad webhook URL, an empty child ID, a reserved id, and an origin another partner holds', async () => {
    const pub = publicJwk(k1);
    const cases: [string, PartnerInput, RegExp][] = [
      ['gamma', { ...beta, origins: ['https://gamma.example/path'] }, /origins/],
      ['gamma', { ...beta, origins: ['gamma.example'] }, /origins/],
      ['gamma', { ...beta, childId: '  ' }, /childId/],
      ['gamma', { ...beta, webhookUrl: 'http://hooks.example/x', webhookSecret: 'whsec_' + 'A'.repeat(32) }, /webhookUrl/],
      ['gamma', { ...beta, webhookUrl: 'https://10.0.0.5/x', webhookSecret: 'whsec_' + 'A'.repeat(32) }, /webhookUrl/],
      // Hosts that cannot be a public server, refused for a deployed sandbox demo too.
      ...[
        'https://localhost./x',
        'https://intranet/x',
        'https://hooks.internal/x',
        'https://[::7f00:1]/x',
        'https://[::ffff:7f00:1]/x',
        'https://[::ffff:10.0.0.1]/x',
        'https://[64:ff9b::a00:1]/x',
        'https://[2002:7f00:1::]/x',
        'https://[fec0::1]/x',
        'https://[fd00::1]/x',
        'https://[ff02::1]/x',
        'https://198.18.0.1/x',
        'https://198.19.255.1/x',
        'https://192.0.0.8/x',
        'https://224.0.0.1/x',
        'https://239.1.2.3/x',
        'https://240.0.0.1/x',
        'https://255.255.255.255/x',
        'https://2130706433/x', // 127.0.0.1 written as a number
        'https://0x7f.1/x',
        // Round 4: IPv4-translated addresses, private-use names, ports other than HTTPS's.
        'https://[::ffff:0:127.0.0.1]/x',
        'https://[::ffff:0:a00:1]/x',
        'https://nas.home.arpa/x',
        'https://router.lan/x',
        'https://hooks.corp/x',
        'https://build.internal/x',
        'https://printer.local/x',
        'https://kubernetes.default.svc/x',
        'https://hooks.default.svc.cluster.local/x',
        'https://hooks.example:22/x',
        'https://hooks.example:6379/x',
        'https://hooks.example:80/x',
        // Issue 40: special-use names that are never routed, and ranges no public server lives in.
        'https://hooks.example/x',
        'https://hooks.test/x',
        'https://hooks.invalid/x',
        'https://hooks.onion/x',
        'https://hooks.alt/x',
        'https://192.88.99.1/x',
        'https://[3fff::1]/x',
        'https://[3fff:fff::1]/x',
        'https://[5f00::1]/x',
      ].map((webhookUrl): [string, PartnerInput, RegExp] => [
        'gamma',
        { ...beta, webhookUrl, webhookSecret: 'whsec_' + 'A'.repeat(32) },
        /webhookUrl/,
      ]),
      ['gamma', { ...beta, webhookUrl: 'https://hooks.example/x' }, /webhookSecret/],
      ['environment', beta, /reserved/],
      // The partners the local stack plugs in (the demo's) keep their ids: the registry may not take them.
      ...DEMO_PARTNERS.map((d): [string, PartnerInput, RegExp] => [d.id, beta, /reserved/]),
      ['Gamma', beta, /partnerId/],
    ];
    for (const [id, input, problem] of cases) {
      await assert.rejects(
        buildRecord(id, input, pub, { sandbox: false }),
        problem,
        `${id} ${JSON.stringify(input.origins)} ${input.webhookUrl}`,
      );
    }
    // Public hosts and addresses stay fine (names under a public suffix: `.example` itself is never routed, issue 40).
    for (const webhookUrl of [
      'https://hooks.example.com/x',
      'https://203.0.114.7/x',
      'https://[2606:4700::1111]/x',
      'https://hooks.example.com./x',
      'https://hooks.example.com:443/x',
      'https://hooks.example.com:8443/x',
      'https://local.example.com/x',
      'https://test.example.com/x',
      'https://[3000::1]/x',
    ]) {
      await buildRecord('gamma', { ...beta, webhookUrl, webhookSecret: 'whsec_' + 'A'.repeat(32) }, pub, { sandbox: false });
    }
    await assert.rejects(
      writeRecord(reg.store, await buildRecord('gamma', { ...beta, origins: [BETA] }, pub, { sandbox: false })),
      /belongs to partner beta/,
    );
  });
});

describe('webhook targets of a sandbox worker', () => {
  it('allow loopback and private addresses on a laptop only: a deployed sandbox demo is held to the public rules', () => {
    const sandboxEnv: Env = nodeEnv({ DEMO: 'on' });
    const secret = 'whsec_' + 'A'.repeat(32);
    for (const url of ['https://10.0.0.5/hooks', 'https://[::7f00:1]/hooks', 'https://localhost./hooks', 'https://198.18.0.1/hooks']) {
      assert.ok(webhookTarget(sandboxEnv, { webhookUrl: url, webhookSecret: secret }, 'http://127.0.0.1:8787'), `${url} on a laptop`);
      assert.equal(webhookTarget(sandboxEnv, { webhookUrl: url, webhookSecret: secret }, 'https://demo.kyc.example'), undefined, url);
    }
    assert.ok(webhookTarget(sandboxEnv, { webhookUrl: 'https://hooks.example.com/x', webhookSecret: secret }, 'https://demo.kyc.example'));
    // Any port on loopback while the sandbox is the vendor locally; elsewhere 443 and 8443 only.
    for (const url of ['http://127.0.0.1:9123/hooks', 'https://localhost:6379/hooks']) {
      assert.ok(webhookTarget(sandboxEnv, { webhookUrl: url, webhookSecret: secret }, 'http://127.0.0.1:8787'), `${url} on a laptop`);
    }
    assert.equal(
      webhookTarget(sandboxEnv, { webhookUrl: 'https://10.0.0.5:22/hooks', webhookSecret: secret }, 'http://127.0.0.1:8787'),
      undefined,
    );
    assert.equal(
      webhookTarget(sandboxEnv, { webhookUrl: 'https://hooks.example:6379/x', webhookSecret: secret }, 'https://demo.kyc.example'),
      undefined,
    );
  });
});
