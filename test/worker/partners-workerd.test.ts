/**
 * Partners in workerd (Miniflare) with a real KV binding: two registry
 * partners in front of a fake vendor on 127.0.0.1 (each call carries its own
 * child ID and key, never the other's; sessions and rate limits (per address,
 * and text messages per number) per partner;
 * a removed partner is refused within PARTNERS_CACHE_SECONDS; the stored
 * bytes hold no secret), and the demo partners in front of the sandbox (an
 * entity made through one child is invisible to the other, visible to the
 * parent).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decode } from 'hono/jwt';
import { exportJWK, generateKeyPair } from 'jose';
import { buildRecord, removeRecord, writeRecord, type RegistryStore } from '../../worker/partners/admin';
import { publicJwk } from '../../worker/partners/sealing';
import { adultDateOfBirth } from '../support/dates';
import { happyVendor, startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';
import { until } from '../support/wait';

const ALPHA = 'https://alpha.example';
const BETA = 'https://beta.example';
const KEY_A = 'alpha-key-wd-5Fq9Zr';
const KEY_B = 'beta-key-wd-8Kd2Vn';
const HOOK_SECRET = 'whsec_' + Buffer.from('alpha webhook secret 0123456789').toString('base64');
const CACHE_SECONDS = 1;
const IP_LIMIT = 6;

const person = {
  name: { givenName: 'Ana', familyName: 'Lima' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};

function storeOf(w: MiniflareWorker): RegistryStore {
  return {
    get: (k) => w.kv.get(k),
    put: (k, v) => w.kv.put(k, v),
    delete: (k) => w.kv.delete(k),
    list: async (p) => (await w.kv.list({ prefix: p })).keys.map((k) => k.name),
  };
}

function post(base: string, path: string, origin: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(base + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: origin, ...headers },
    body: JSON.stringify(body),
  });
}

describe('registry partners in workerd, with a fake vendor', () => {
  let vendor: FakeVendor;
  let worker: MiniflareWorker;
  let store: RegistryStore;

  before(async () => {
    vendor = await startFakeVendor();
    const { privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
    const key = { ...(await exportJWK(privateKey)), kid: 'wd-seal-1' };
    worker = await startMiniflareWorker({
      vars: {
        OPS_TOKEN: 'ops-token-for-ruok-0123456789-abcdef',
        KYC_BASE_URL: vendor.url,
        KYC_API_KEY: 'operator-key-wd',
        KYC_CUSTOMER_ID: 'op-customer',
        SESSION_SECRET: 'workerd-partners-session-secretx',
        PARTNER_SEALING_KEY: JSON.stringify(key),
        PARTNERS_CACHE_SECONDS: String(CACHE_SECONDS),
        KYC_TIMEOUT_MS: '3000',
      },
      ipLimit: IP_LIMIT,
    });
    store = storeOf(worker);
    const pub = publicJwk(key);
    await writeRecord(
      store,
      await buildRecord(
        'alpha',
        {
          displayName: 'Alpha',
          origins: [ALPHA],
          childId: 'child-alpha',
          apiKey: KEY_A,
          flowId: 'flow-a',
          webhookUrl: 'https://hooks.alpha.example.com/kyc',
          webhookSecret: HOOK_SECRET,
        },
        pub,
        { sandbox: false },
      ),
    );
    await writeRecord(
      store,
      await buildRecord('beta', { displayName: 'Beta', origins: [BETA], childId: 'child-beta', apiKey: KEY_B }, pub, { sandbox: false }),
    );
  });
  after(async () => {
    await worker?.dispose();
    await vendor?.close();
  });

  it('each partner’s requests reach the vendor with its own child ID and key, never the other’s', async () => {
    vendor.behave(happyVendor);
    vendor.requests.length = 0;
    for (const [origin, ip] of [
      [ALPHA, '198.51.100.1'],
      [BETA, '198.51.100.2'],
    ] as const) {
      const link = await post(worker.url, '/api/onboarding-link', origin, person, { 'CF-Connecting-IP': ip });
      assert.equal(link.status, 200, await link.clone().text());
      assert.equal(link.headers.get('Access-Control-Allow-Origin'), origin);
      const { session } = (await link.json()) as { session: string };
      const result = await post(worker.url, '/api/result', origin, { session }, { 'CF-Connecting-IP': ip });
      assert.equal(result.status, 200);
    }
    // A named partner's check answers the operator only; to anyone else every id is the same 404.
    assert.equal((await fetch(`${worker.url}/api/ruok?partner=beta`)).status, 404);
    const ruok = await fetch(`${worker.url}/api/ruok?partner=beta`, {
      headers: { Authorization: 'Bearer ops-token-for-ruok-0123456789-abcdef' },
    });
    assert.equal(ruok.status, 200);
    const seen = vendor.requests.map(
      (r) => `${r.path} ${r.headers['x-service-customerchildid']} ${r.headers['api_key']} ${r.headers['x-service-customerid']}`,
    );
    assert.deepEqual(seen, [
      `/idv/v2/idvalidate/onboarding-url child-alpha ${KEY_A} op-customer`,
      `/idv/v2/idvalidate/result child-alpha ${KEY_A} op-customer`,
      `/idv/v2/idvalidate/onboarding-url child-beta ${KEY_B} op-customer`,
      `/idv/v2/idvalidate/result child-beta ${KEY_B} op-customer`,
      `/v2/kyc/ruok child-beta ${KEY_B} op-customer`,
    ]);
    assert.equal(JSON.parse(vendor.requests[0]!.body).flowId, 'flow-a');
    assert.equal(JSON.parse(vendor.requests[2]!.body).flowId, undefined);
  });

  it('a session or Idempotency-Key of one partner does nothing for the other', async () => {
    vendor.requests.length = 0;
    const key = { 'Idempotency-Key': 'workerd-shared-key-1', 'CF-Connecting-IP': '198.51.100.3' };
    const a = await post(worker.url, '/api/onboarding-link', ALPHA, person, key);
    assert.equal(a.status, 200);
    const { session } = (await a.json()) as { session: string };
    const stolen = await post(worker.url, '/api/result', BETA, { session }, { 'CF-Connecting-IP': '198.51.100.3' });
    assert.equal(stolen.status, 403);
    assert.equal(((await stolen.json()) as { errorCode: string }).errorCode, 'ORIGIN_NOT_ALLOWED');
    const b = await post(worker.url, '/api/onboarding-link', BETA, person, key);
    assert.equal(b.status, 200);
    assert.equal(b.headers.get('Idempotent-Replayed'), null);
    assert.equal((decode(((await b.json()) as { session: string }).session).payload as { pid: string }).pid, 'beta');
    assert.deepEqual(
      vendor.requests.map((r) => r.headers['api_key']),
      [KEY_A, KEY_B],
    );
  });

  it('counts rate limits per client, whichever partner it claims: alpha spent, beta from the same address is refused too', async () => {
    // The binding counts in fixed 60 s windows; a run that straddles two windows is repeated.
    for (let attempt = 0; ; attempt++) {
      const ip = `203.0.113.${10 + attempt}`;
      const window = Math.floor(Date.now() / 60_000);
      const statuses: number[] = [];
      for (let i = 0; i <= IP_LIMIT; i++)
        statuses.push((await fetch(`${worker.url}/api/ruok`, { headers: { Origin: ALPHA, 'CF-Connecting-IP': ip } })).status);
      const beta = await fetch(`${worker.url}/api/ruok`, { headers: { Origin: BETA, 'CF-Connecting-IP': ip } });
      if (Math.floor(Date.now() / 60_000) !== window && attempt < 3) continue;
      assert.deepEqual(statuses, [...Array(IP_LIMIT).fill(200), 429]);
      assert.equal(beta.status, 429, 'claiming another partner’s origin buys no more');
      break;
    }
  });

  it('counts text messages to one number across partners: alpha’s texts spent the number’s budget, beta cannot text it either', async () => {
    for (let attempt = 0; ; attempt++) {
      const phone = { code: '+61', number: `0412 000 0${10 + attempt}` };
      const window = Math.floor(Date.now() / 60_000);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          (
            await post(
              worker.url,
              '/api/onboarding-link',
              ALPHA,
              { ...person, phone, sendSMS: true },
              { 'CF-Connecting-IP': `198.51.100.${40 + i}` },
            )
          ).status,
        );
      }
      const beta = await post(
        worker.url,
        '/api/onboarding-link',
        BETA,
        { ...person, phone, sendSMS: true },
        { 'CF-Connecting-IP': '198.51.100.50' },
      );
      if (Math.floor(Date.now() / 60_000) !== window && attempt < 3) continue;
      assert.deepEqual(statuses, [200, 200, 200, 429], 'RL_SMS allows 3 a minute to one number');
      assert.equal(beta.status, 429, 'another partner buys the number no more texts');
      break;
    }
  });

  it('the stored bytes hold no secret', async () => {
    const names = await store.list('');
    assert.ok(names.includes('partner:alpha') && names.includes('origin:https://alpha.example'));
    const bytes = (await Promise.all(names.map((n) => worker.kv.get(n)))).join('\n');
    for (const secret of [KEY_A, KEY_B, HOOK_SECRET, HOOK_SECRET.slice(6, 20), KEY_A.slice(0, 10)]) {
      assert.ok(!bytes.includes(secret), 'a secret is readable in KV');
    }
    assert.ok(bytes.includes('child-alpha'), 'the rest of the record is readable (the scan did read the records)');
  });

  it('a removed partner is refused within PARTNERS_CACHE_SECONDS', async () => {
    // A fresh client address per request: the per-IP limit is not what this tests.
    let n = 0;
    const ip = () => ({ 'CF-Connecting-IP': `192.0.2.${++n}` });
    assert.equal((await post(worker.url, '/api/onboarding-link', BETA, person, ip())).status, 200);
    assert.ok(await removeRecord(store, 'beta'));
    const removedAt = Date.now();
    // Local KV is consistent at once; only the worker's cache stands between.
    const status = await until(
      async () => ((s) => s !== 200 && s)((await post(worker.url, '/api/onboarding-link', BETA, person, ip())).status),
      {
        what: 'the removed partner refused',
        timeoutMs: (CACHE_SECONDS + 5) * 1000,
      },
    );
    assert.ok(Date.now() - removedAt < (CACHE_SECONDS + 5) * 1000);
    assert.equal(status, 403);
    // Still refused on the next request (no stale isolate answer flips it back).
    assert.equal((await post(worker.url, '/api/onboarding-link', BETA, person, ip())).status, 403);
  });
});

describe('demo partners in workerd, with the sandbox as the vendor', () => {
  let worker: MiniflareWorker;
  before(async () => {
    worker = await startMiniflareWorker();
  });
  after(async () => {
    await worker?.dispose();
  });

  async function createThrough(origin: string): Promise<string> {
    const res = await post(worker.url, '/api/onboarding-link', origin, person);
    assert.equal(res.status, 200, await res.clone().text());
    return (decode(((await res.json()) as { session: string }).session).payload as { sub: string }).sub;
  }

  async function checksAs(entityId: string, creds: { apiKey: string; childId?: string }): Promise<number> {
    const res = await fetch(`${worker.url}/sandbox/v2/kyc/entity/${entityId}/checks`, {
      headers: {
        api_key: creds.apiKey,
        'X-Service-CustomerID': 'demo-customer',
        ...(creds.childId ? { 'X-Service-CustomerChildID': creds.childId } : {}),
      },
    });
    await res.body?.cancel();
    return res.status;
  }

  it('127.0.0.1 is Harbourline Bank (demo-child-a) and localhost is Kestrel Credit Union (demo-child-b); each child sees only its own, the parent both', async () => {
    const port = new URL(worker.url).port;
    const viaA = await createThrough(`http://127.0.0.1:${port}`);
    const viaB = await createThrough(`http://localhost:${port}`);
    const childA = { childId: 'demo-child-a', apiKey: 'sandbox-key-a' };
    const childB = { childId: 'demo-child-b', apiKey: 'sandbox-key-b' };
    const parent = { apiKey: 'sandbox-key' };
    assert.deepEqual(
      [await checksAs(viaA, childA), await checksAs(viaA, childB), await checksAs(viaA, parent)],
      [200, 404, 200],
      'made through partner A',
    );
    assert.deepEqual(
      [await checksAs(viaB, childB), await checksAs(viaB, childA), await checksAs(viaB, parent)],
      [200, 404, 200],
      'made through partner B',
    );
    // Another port on the same host is not the worker's own origin: no partner.
    const other = await post(worker.url, '/api/onboarding-link', `http://localhost:${Number(port) + 1}`, person);
    assert.equal(other.status, 403);
  });
});
