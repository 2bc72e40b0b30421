/**
 * The partner's server API (`/v1`) in workerd (Miniflare: real KV, a real
 * local D1 with migrations/ applied, Durable Objects, queues), with the
 * sandbox as the vendor. Two registry partners, each with a server key and a
 * webhook endpoint, and the environment's partner (PARTNER_SERVER_KEYS). The
 * server starts a verification, the page makes its link with the client
 * secret, the sandbox's hosted flow completes it, and the server reads it
 * back with the verified person; plus the refusals (keys, other partners,
 * closed verifications), cancel and redact.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { Webhook } from 'standardwebhooks';
import { buildRecord, writeRecord, type RegistryStore } from '../../worker/partners/admin';
import { DEV_SEALING_KEY, publicJwk } from '../../worker/partners/sealing';
import { newServerKey, serverKeyHash } from '../../worker/server-api/keys';
import { adultDateOfBirth, realNow } from '../support/dates';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';
import * as wait from '../support/wait';

const secretOf = () => `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
const PARTNERS = {
  alpha: {
    origin: 'https://alpha.example',
    child: 'demo-child-a',
    key: 'sandbox-key-a',
    secret: secretOf(),
    serverKey: newServerKey('test'),
  },
  beta: {
    origin: 'https://beta.example',
    child: 'demo-child-b',
    key: 'sandbox-key-b',
    secret: secretOf(),
    serverKey: newServerKey('test'),
  },
} as const;
// A key made before keys said their mode (`kyc_sk_` + 43): still accepted, with a warning in the log.
const ENV_KEY = `kyc_sk_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}`;
const ENV_ORIGIN = 'https://env.example';

interface Delivery {
  path: string;
  id: string;
  body: { type: string; data: Record<string, unknown> };
}
const deliveries: Delivery[] = [];
let receiver: Server;
let worker: MiniflareWorker;

before(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const name = (req.url ?? '').slice(1) as keyof typeof PARTNERS;
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      new Webhook(PARTNERS[name].secret).verify(body, headers); // throws (500) on a bad signature
      deliveries.push({ path: req.url ?? '', id: headers['webhook-id'], body: JSON.parse(body) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  worker = await startMiniflareWorker({
    vars: {
      RESULT_POLL_SECONDS: '5',
      WEBHOOK_RETRY_SCHEDULE: '1',
      WEBHOOK_TIMEOUT_MS: '2000',
      ALLOWED_ORIGINS: ENV_ORIGIN,
      PARTNER_SERVER_KEYS: ENV_KEY,
    },
  });
  const store: RegistryStore = {
    get: (k) => worker.kv.get(k),
    put: (k, v) => worker.kv.put(k, v),
    delete: (k) => worker.kv.delete(k),
    list: async (p) => (await worker.kv.list({ prefix: p })).keys.map((k) => k.name),
  };
  for (const [id, p] of Object.entries(PARTNERS)) {
    const record = await buildRecord(
      id,
      {
        displayName: id,
        origins: [p.origin],
        childId: p.child,
        apiKey: p.key,
        webhookUrl: `${hooks}/${id}`,
        webhookSecret: p.secret,
        serverKeyHashes: [await serverKeyHash(p.serverKey)],
      },
      publicJwk(DEV_SEALING_KEY),
      { sandbox: true },
    );
    await writeRecord(store, record);
  }
});
after(async () => {
  await worker?.dispose();
  receiver?.closeAllConnections();
  await new Promise((ok) => receiver?.close(ok));
});

type Name = keyof typeof PARTNERS;

function v1(path: string, key: string | undefined, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  return fetch(worker.url + path, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(key !== undefined ? { Authorization: `Bearer ${key}` } : {}),
      ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...init.headers,
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
}

function api(path: string, origin: string, body: unknown): Promise<Response> {
  return fetch(worker.url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: origin },
    body: JSON.stringify(body),
  });
}

const PERSON = {
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};

async function until<T>(what: string, get: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
  const seen = await wait.until(async () => ((v) => v !== undefined && { v })(await get()), {
    what,
    timeoutMs: ms,
    detail: () => worker.logs.slice(-20).join('\n'),
  });
  return seen.v;
}

interface Created {
  verificationId: string;
  clientSecret: string;
  status: string;
  expiresAt: string;
  livemode: boolean;
}

async function create(name: Name, customerRef: string, extra: Record<string, unknown> = {}): Promise<Created> {
  const res = await v1('/v1/verifications', PARTNERS[name].serverKey, { body: { customerRef, ...extra } });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Created;
}

const get = async (name: Name, id: string, query = '') => {
  const res = await v1(`/v1/verifications/${id}${query}`, PARTNERS[name].serverKey);
  return { res, body: (await res.json()) as Record<string, any> };
};

describe('/v1 keys', () => {
  it('a missing, malformed or unknown key is the same 401 UNAUTHENTICATED, with WWW-Authenticate, no CORS, no-store', async () => {
    const answers = await Promise.all([
      v1('/v1/verifications', undefined, { headers: { Origin: PARTNERS.alpha.origin } }),
      v1('/v1/verifications', 'not-a-key', { headers: { Origin: PARTNERS.alpha.origin } }),
      v1('/v1/verifications', `${PARTNERS.alpha.serverKey.slice(0, -1)}x`, { headers: { Origin: PARTNERS.alpha.origin } }),
      v1('/v1/verifications', newServerKey('test'), { headers: { Origin: PARTNERS.alpha.origin } }),
      fetch(`${worker.url}/v1/verifications`, { headers: { Authorization: `Basic ${btoa('a:b')}` } }),
    ]);
    const bodies = await Promise.all(answers.map((r) => r.json() as Promise<{ errorCode: string; errorMsg: string; issues: unknown[] }>));
    for (const [i, r] of answers.entries()) {
      assert.equal(r.status, 401, `answer ${i}`);
      assert.match(r.headers.get('WWW-Authenticate') ?? '', /^Bearer/);
      assert.equal(r.headers.get('Access-Control-Allow-Origin'), null);
      assert.equal(r.headers.get('Cache-Control'), 'no-store');
      assert.deepEqual({ ...bodies[i], requestId: '' }, { ...bodies[0], requestId: '' }, 'one answer for every kind of bad key');
    }
    assert.equal(bodies[0]!.errorCode, 'UNAUTHENTICATED');
  });

  it('a live key on this test deployment (the sandbox is its vendor) is a 401 that says so', async () => {
    const r = await v1('/v1/verifications', newServerKey('live'));
    assert.equal(r.status, 401);
    assert.match(r.headers.get('WWW-Authenticate') ?? '', /^Bearer/);
    const body = (await r.json()) as { errorCode: string; errorMsg: string };
    assert.equal(body.errorCode, 'UNAUTHENTICATED');
    assert.match(body.errorMsg, /a live key on a test deployment/i);
  });

  it('each partner’s key (registry and environment) works, no CORS even with an Origin, no-store', async () => {
    for (const key of [PARTNERS.alpha.serverKey, PARTNERS.beta.serverKey, ENV_KEY]) {
      const r = await v1('/v1/verifications', key, { headers: { Origin: PARTNERS.alpha.origin } });
      assert.equal(r.status, 200, await r.clone().text());
      assert.equal(r.headers.get('Access-Control-Allow-Origin'), null);
      assert.equal(r.headers.get('Cache-Control'), 'no-store');
    }
    assert.ok(
      worker.logs.some((l) => l.includes('server_key_without_mode')),
      'the key made before modes is accepted with a warning',
    );
  });
});

describe('/v1 wrong keys per client', () => {
  it('70 wrong keys from one IPv6 /64 meet a 429; then even a right key from that /64 or its /48 is refused before any lookup', async () => {
    const from = (ip: string, key: string) => v1('/v1/verifications', key, { headers: { 'CF-Connecting-IP': ip } });
    const statuses: number[] = [];
    for (let i = 1; i <= 70; i++) statuses.push((await from(`2001:db8:70:6400::${i.toString(16)}`, newServerKey('test'))).status);
    assert.ok(statuses.includes(429), `70 wrong keys met no 429: ${[...new Set(statuses)].join(', ')}`);
    assert.ok(
      statuses.slice(0, 19).every((s) => s === 401),
      'the first wrong keys are plain 401s',
    );
    // A registry partner's right key needs the KV read to be recognised: a 429 shows it was never looked up.
    const right = await from('2001:db8:70:6400::ffff', PARTNERS.alpha.serverKey);
    assert.equal(right.status, 429, 'refused before the key is looked up');
    assert.equal(((await right.json()) as { errorCode: string }).errorCode, 'RATE_LIMITED');
    assert.match(right.headers.get('Retry-After') ?? '', /^\d+$/);
    assert.equal((await from('2001:db8:70:65ff::1', PARTNERS.alpha.serverKey)).status, 429, 'another /64 of the same /48');
    assert.equal((await from('2001:db8:71::1', PARTNERS.alpha.serverKey)).status, 200, 'another /48 has its own count');
  });
});

describe('/v1 verifications', () => {
  it('bad input names each field; unknown and malformed ids are 404', async () => {
    const key = PARTNERS.alpha.serverKey;
    const bad = await v1('/v1/verifications', key, { body: { expiresInSeconds: 10, sms: 'yes', extra: 1 } });
    assert.equal(bad.status, 400);
    const issues = ((await bad.json()) as { issues: { issueLocation: string }[] }).issues.map((i) => i.issueLocation).sort();
    assert.deepEqual(issues, ['customerRef', 'expiresInSeconds', 'extra', 'sms']);
    const long = await v1('/v1/verifications', key, { body: { customerRef: 'x'.repeat(101) } });
    assert.equal(long.status, 400);
    const list = await v1('/v1/verifications?limit=0&status=done', key);
    assert.equal(list.status, 400);
    assert.deepEqual(((await list.json()) as { issues: { issueLocation: string }[] }).issues.map((i) => i.issueLocation).sort(), [
      'limit',
      'status',
    ]);
    for (const id of ['nope', 'vrf_01JD0000000000000000000000', 'vrf_../x']) {
      const r = await v1(`/v1/verifications/${id}`, key);
      assert.equal(r.status, 404, id);
      assert.equal(((await r.json()) as { errorCode: string }).errorCode, 'NOT_FOUND');
    }
    const idem = await v1('/v1/verifications', key, { body: { customerRef: 'a' }, headers: { 'Idempotency-Key': 'short' } });
    assert.equal(idem.status, 400);
  });

  it('resume from a retrieved client secret (the page pattern: the verification id kept in the session): no second vendor link', async () => {
    const made = await create('alpha', `acct-${crypto.randomUUID().slice(0, 8)}`);
    const created = await get('alpha', made.verificationId);
    assert.equal(created.body.clientSecret, made.clientSecret, 'created: the client secret again');
    const first = await api('/api/onboarding-link', PARTNERS.alpha.origin, { ...PERSON, clientSecret: created.body.clientSecret });
    assert.equal(first.status, 200, await first.clone().text());
    const link = (await first.json()) as { url: string };
    const opened = await get('alpha', made.verificationId);
    // The page loads again: its server retrieves the verification it kept and gives the page the secret it read.
    const resumed = await api('/api/onboarding-link', PARTNERS.alpha.origin, { ...PERSON, clientSecret: opened.body.clientSecret });
    assert.equal(resumed.status, 200, await resumed.clone().text());
    assert.equal(((await resumed.json()) as { url: string }).url, link.url, 'the same vendor link, not a second one');
    assert.equal((await get('alpha', made.verificationId)).body.entityId, opened.body.entityId, 'the same vendor entity');
    const canceled = await v1(`/v1/verifications/${made.verificationId}/cancel`, PARTNERS.alpha.serverKey, { method: 'POST' });
    assert.equal(canceled.status, 200);
    assert.equal(((await canceled.json()) as { clientSecret?: string }).clientSecret, undefined);
    assert.equal((await get('alpha', made.verificationId)).body.clientSecret, undefined, 'a canceled verification has no secret to give');
  });

  it('Idempotency-Key: the same request answers the same verification and client secret', async () => {
    const headers = { 'Idempotency-Key': `idem-${crypto.randomUUID()}` };
    const key = PARTNERS.alpha.serverKey;
    const a = await v1('/v1/verifications', key, { body: { customerRef: 'acct-idem' }, headers });
    const b = await v1('/v1/verifications', key, { body: { customerRef: 'acct-idem' }, headers });
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.equal(b.headers.get('Idempotent-Replayed'), 'true');
    assert.deepEqual(await b.json(), await a.json());
    const other = await v1('/v1/verifications', key, { body: { customerRef: 'acct-other' }, headers });
    assert.equal(other.status, 409);
  });

  it('Idempotency-Key: a replay after a cancel answers the verification as it is now, without the dead client secret', async () => {
    const headers = { 'Idempotency-Key': `idem-${crypto.randomUUID()}` };
    const key = PARTNERS.alpha.serverKey;
    const first = (await (await v1('/v1/verifications', key, { body: { customerRef: 'acct-idem-cancel' }, headers })).json()) as Created;
    const canceled = await v1(`/v1/verifications/${first.verificationId}/cancel`, key, { method: 'POST' });
    assert.equal(canceled.status, 200);
    const replay = await v1('/v1/verifications', key, { body: { customerRef: 'acct-idem-cancel' }, headers });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('Idempotent-Replayed'), 'true');
    const body = (await replay.json()) as Record<string, unknown>;
    assert.equal(body.verificationId, first.verificationId);
    assert.equal(body.status, 'canceled');
    assert.ok(body.canceledAt);
    assert.equal(body.clientSecret, undefined, 'no client secret that no longer works');
  });

  it('server first: create → link with the client secret → hosted flow → token with the server’s customer_ref → the verified person → the list', async () => {
    const ref = `acct-${crypto.randomUUID().slice(0, 8)}`;
    const made = await create('alpha', ref);
    assert.match(made.verificationId, /^vrf_[0-9A-Z]{26}$/);
    assert.ok(made.clientSecret.startsWith(`${made.verificationId}_secret_`));
    assert.equal(made.status, 'created');
    assert.equal(made.livemode, false);
    const hours = (Date.parse(made.expiresAt) - Date.now()) / 3_600_000;
    assert.ok(hours > 23.9 && hours <= 24, `default expiry ${hours} h`);

    let { body: read } = await get('alpha', made.verificationId);
    assert.equal(read.status, 'created');
    assert.equal(read.customerRefSource, 'server');
    assert.equal(read.entityId, undefined);

    // The page may not set another reference with the secret.
    const both = await api('/api/onboarding-link', PARTNERS.alpha.origin, {
      ...PERSON,
      clientSecret: made.clientSecret,
      customerRef: 'victim',
    });
    assert.equal(both.status, 400);
    assert.deepEqual(
      ((await both.json()) as { issues: { issueLocation: string }[] }).issues.map((i) => i.issueLocation),
      ['customerRef'],
    );
    // Another partner's page cannot use it.
    const stolen = await api('/api/onboarding-link', PARTNERS.beta.origin, { ...PERSON, clientSecret: made.clientSecret });
    assert.equal(stolen.status, 401);
    const forged = await api('/api/result', PARTNERS.alpha.origin, { clientSecret: `${made.verificationId}_secret_${'A'.repeat(43)}` });
    assert.equal(forged.status, 401);

    const before = await api('/api/result', PARTNERS.alpha.origin, { clientSecret: made.clientSecret });
    assert.deepEqual(await before.json(), { checkStatus: 'CHECKING', verificationId: made.verificationId, status: 'created' });

    const linkRes = await api('/api/onboarding-link', PARTNERS.alpha.origin, { ...PERSON, clientSecret: made.clientSecret });
    assert.equal(linkRes.status, 200, await linkRes.clone().text());
    const link = (await linkRes.json()) as { url: string; verificationId: string; session: string };
    assert.equal(link.verificationId, made.verificationId);

    // Resume: the same link again, no second vendor link (a new one would be a new URL).
    const again = await api('/api/onboarding-link', PARTNERS.alpha.origin, { clientSecret: made.clientSecret });
    assert.equal(again.status, 200, await again.clone().text());
    assert.equal(((await again.json()) as { url: string }).url, link.url);
    const againWithDetails = await api('/api/onboarding-link', PARTNERS.alpha.origin, { ...PERSON, clientSecret: made.clientSecret });
    assert.equal(((await againWithDetails.json()) as { url: string }).url, link.url);

    ({ body: read } = await get('alpha', made.verificationId));
    assert.equal(read.status, 'open');
    assert.equal(read.partnerOrigin, PARTNERS.alpha.origin);
    assert.ok(read.entityId);
    assert.equal(read.clientSecret, made.clientSecret, 'an open verification can be resumed: retrieve gives its client secret');
    const early = await get('alpha', made.verificationId, '?include=person');
    assert.equal(early.res.status, 409);
    assert.equal(early.body.errorCode, 'NOT_FINAL');

    const flow = await fetch(link.url, { method: 'POST', body: new URLSearchParams({ outcome: 'complete' }), redirect: 'manual' });
    assert.equal(flow.status, 303);
    const final = await until('the final status', async () => {
      const r = await api('/api/result', PARTNERS.alpha.origin, { clientSecret: made.clientSecret });
      assert.equal(r.status, 200);
      const a = (await r.json()) as { status: string; resultToken?: string; checkStatus: string };
      return a.resultToken ? a : undefined;
    });
    assert.equal(final.status, 'final');
    const jwks = createRemoteJWKSet(new URL(`${worker.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(final.resultToken!, jwks, { audience: PARTNERS.alpha.origin, currentDate: new Date(realNow()) });
    assert.equal(payload.customer_ref, ref, 'the server’s reference, not a page’s');
    assert.equal(payload.customer_ref_source, 'server');
    assert.equal(payload.sub, made.verificationId);

    const withPerson = await get('alpha', made.verificationId, '?include=person');
    assert.equal(withPerson.res.status, 200, JSON.stringify(withPerson.body));
    assert.equal(withPerson.res.headers.get('Cache-Control'), 'no-store');
    assert.equal(withPerson.body.status, 'final');
    assert.equal(withPerson.body.checkStatus, final.checkStatus);
    assert.ok(withPerson.body.resultToken);
    assert.equal(withPerson.body.person.entityId, withPerson.body.entityId);
    assert.equal(withPerson.body.person.name.givenName, 'Ada');
    assert.equal(withPerson.body.person.name.familyName, 'Lovelace');
    assert.equal(withPerson.body.person.dateOfBirth.dateOfBirth, PERSON.dateOfBirth);
    assert.doesNotMatch(JSON.stringify(withPerson.body), /scanData/);
    // Never logged.
    assert.ok(!worker.logs.some((l) => l.includes('Lovelace')), 'the person’s name is in no log line');

    const listed = await v1(`/v1/verifications?customerRef=${ref}`, PARTNERS.alpha.serverKey);
    const page = (await listed.json()) as {
      data: { verificationId: string; status: string; customerRefSource: string; attempts?: unknown }[];
    };
    assert.deepEqual(
      page.data.map((d) => [d.verificationId, d.status, d.customerRefSource]),
      [[made.verificationId, 'final', 'server']],
    );
    assert.equal(withPerson.body.attempts.length, 1, 'one attempt, ended with the final status');
    assert.deepEqual(page.data[0]!.attempts, withPerson.body.attempts, 'the list shows the attempts GET shows (migration 0004)');
    const fromBeta = await v1(`/v1/verifications?customerRef=${ref}`, PARTNERS.beta.serverKey);
    assert.deepEqual(((await fromBeta.json()) as { data: unknown[] }).data, [], 'another partner’s list never shows it');

    // Opening the page again with the same secret: complete at once, with its token.
    const resumed = await api('/api/result', PARTNERS.alpha.origin, { clientSecret: made.clientSecret });
    assert.equal(((await resumed.json()) as { status: string }).status, 'final');
  });

  it('resuming a QR handoff from the client secret (a new tab) answers its handoff URL and its claim code', async () => {
    const made = await create('alpha', 'acct-qr-resume');
    const first = await api('/api/onboarding-link', PARTNERS.alpha.origin, { ...PERSON, clientSecret: made.clientSecret, handoff: true });
    assert.equal(first.status, 200, await first.clone().text());
    const link = (await first.json()) as { url: string; claimCode?: string; qr?: unknown };
    assert.match(link.claimCode ?? '', /^\d{6}$/);
    const resumed = await api('/api/onboarding-link', PARTNERS.alpha.origin, { clientSecret: made.clientSecret });
    assert.equal(resumed.status, 200, await resumed.clone().text());
    const again = (await resumed.json()) as { url: string; claimCode?: string; qr?: unknown };
    assert.equal(again.url, link.url);
    assert.equal(again.claimCode, link.claimCode, 'the code the phone will ask for');
    assert.ok(again.qr);
  });

  it('partner A’s key on partner B’s verification is 404 for every route', async () => {
    const made = await create('beta', 'acct-beta');
    for (const [method, path] of [
      ['GET', ''],
      ['GET', '?include=person'],
      ['POST', '/cancel'],
      ['POST', '/redact'],
      ['POST', '/webhook/redeliver'],
    ] as const) {
      const r = await v1(`/v1/verifications/${made.verificationId}${path}`, PARTNERS.alpha.serverKey, { method });
      assert.equal(r.status, 404, `${method} ${path}`);
    }
    assert.equal((await get('beta', made.verificationId)).body.status, 'created', 'untouched');
  });

  it('a page-set customer-ref: its token says customer_ref_source "page"; listing by customerRef finds only the server’s unless asked', async () => {
    const ref = `page-${crypto.randomUUID().slice(0, 8)}`;
    const server = await create('beta', ref);
    const res = await api('/api/onboarding-link', PARTNERS.beta.origin, { ...PERSON, customerRef: ref });
    assert.equal(res.status, 200);
    const { verificationId, url, session } = (await res.json()) as { verificationId: string; url: string; session: string };
    type Row = { verificationId: string; status: string; customerRefSource: string };
    const list = async (query: string) =>
      ((await (await v1(`/v1/verifications?${query}`, PARTNERS.beta.serverKey)).json()) as { data: Row[] }).data.map((d) => [
        d.verificationId,
        d.status,
        d.customerRefSource,
      ]);
    assert.deepEqual(await list(`customerRef=${ref}`), [[server.verificationId, 'created', 'server']], 'the server’s reference only');
    assert.deepEqual(await list(`customerRef=${ref}&customerRefSource=page`), [[verificationId, 'open', 'page']]);
    assert.deepEqual(await list(`customerRef=${ref}&customerRefSource=any`), [
      [verificationId, 'open', 'page'],
      [server.verificationId, 'created', 'server'],
    ]);
    const bad = await v1(`/v1/verifications?customerRefSource=browser`, PARTNERS.beta.serverKey);
    assert.equal(bad.status, 400);
    assert.deepEqual(
      ((await bad.json()) as { issues: { issueLocation: string }[] }).issues.map((i) => i.issueLocation),
      ['customerRefSource'],
    );

    await fetch(url, { method: 'POST', body: new URLSearchParams({ outcome: 'complete' }), redirect: 'manual' });
    const token = await until('the page’s token', async () => {
      const a = (await (await api('/api/result', PARTNERS.beta.origin, { session })).json()) as { resultToken?: string };
      return a.resultToken;
    });
    const jwks = createRemoteJWKSet(new URL(`${worker.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(token, jwks, { audience: PARTNERS.beta.origin, currentDate: new Date(realNow()) });
    assert.equal(payload.customer_ref, ref);
    assert.equal(payload.customer_ref_source, 'page', 'a page-set reference is marked as such in the token');
  });

  it('cancel: polling stops, the secret and the session stop working, verification.canceled goes out', async () => {
    const made = await create('alpha', 'acct-cancel');
    const link = (await (
      await api('/api/onboarding-link', PARTNERS.alpha.origin, { ...PERSON, clientSecret: made.clientSecret })
    ).json()) as {
      session: string;
    };
    const canceled = await v1(`/v1/verifications/${made.verificationId}/cancel`, PARTNERS.alpha.serverKey, { method: 'POST' });
    assert.equal(canceled.status, 200);
    const body = (await canceled.json()) as { status: string; canceledAt?: string };
    assert.equal(body.status, 'canceled');
    assert.ok(body.canceledAt);
    for (const r of [
      await api('/api/result', PARTNERS.alpha.origin, { clientSecret: made.clientSecret }),
      await api('/api/onboarding-link', PARTNERS.alpha.origin, { clientSecret: made.clientSecret }),
      await api('/api/onboarding-link', PARTNERS.alpha.origin, { ...PERSON, clientSecret: made.clientSecret }),
      await api('/api/result', PARTNERS.alpha.origin, { session: link.session }),
    ]) {
      assert.equal(r.status, 409);
      assert.equal(((await r.json()) as { errorCode: string }).errorCode, 'VERIFICATION_CLOSED');
    }
    const twice = await v1(`/v1/verifications/${made.verificationId}/cancel`, PARTNERS.alpha.serverKey, { method: 'POST' });
    assert.equal(twice.status, 409);
    const event = await until('verification.canceled', () => deliveries.find((d) => d.body.data.verificationId === made.verificationId));
    assert.equal(event.body.type, 'verification.canceled');
    assert.equal(event.path, '/alpha');
    assert.equal(event.body.data.customerRef, 'acct-cancel');
    const listed = await v1('/v1/verifications?status=canceled&customerRef=acct-cancel', PARTNERS.alpha.serverKey);
    assert.deepEqual(
      ((await listed.json()) as { data: { verificationId: string }[] }).data.map((d) => d.verificationId),
      [made.verificationId],
    );
  });

  it('redact forgets customerRef and entityId (record, index, webhooks) and sends verification.redacted; redeliver sends that last event again with the same webhook-id', async () => {
    const ref = `acct-redact-${crypto.randomUUID().slice(0, 6)}`;
    const made = await create('alpha', ref);
    const link = (await (
      await api('/api/onboarding-link', PARTNERS.alpha.origin, { ...PERSON, clientSecret: made.clientSecret })
    ).json()) as {
      url: string;
      session: string;
    };
    await fetch(link.url, { method: 'POST', body: new URLSearchParams({ outcome: 'complete' }), redirect: 'manual' });
    await until('final', async () => ((await get('alpha', made.verificationId)).body.status === 'final' ? true : undefined));
    const first = await until('verification.completed', () => deliveries.find((d) => d.body.data.verificationId === made.verificationId));
    assert.equal(first.body.data.customerRef, ref);
    const tokenBefore = (await (await api('/api/result', PARTNERS.alpha.origin, { clientSecret: made.clientSecret })).json()) as {
      resultToken?: string;
    };
    assert.ok(tokenBefore.resultToken, 'a final verification’s secret gives its token before the redaction');

    const redacted = await v1(`/v1/verifications/${made.verificationId}/redact`, PARTNERS.alpha.serverKey, { method: 'POST' });
    assert.equal(redacted.status, 200);
    // After the redaction neither the client secret nor the session gives a token.
    for (const r of [
      await api('/api/result', PARTNERS.alpha.origin, { clientSecret: made.clientSecret }),
      await api('/api/result', PARTNERS.alpha.origin, { session: link.session }),
      await api('/api/onboarding-link', PARTNERS.alpha.origin, { clientSecret: made.clientSecret }),
    ]) {
      const text = await r.text();
      assert.ok(r.status === 409 || r.status === 401, `${r.status} ${text}`);
      assert.doesNotMatch(text, /resultToken/);
    }
    const after = (await get('alpha', made.verificationId)).body;
    assert.equal(after.customerRef, undefined);
    assert.equal(after.entityId, undefined);
    assert.ok(after.redactedAt);
    assert.equal(after.status, 'final', 'status and times stay');
    assert.ok(after.createdAt);
    const listed = await v1(`/v1/verifications?customerRef=${ref}`, PARTNERS.alpha.serverKey);
    assert.deepEqual(((await listed.json()) as { data: unknown[] }).data, [], 'the index forgot the reference');
    const person = await get('alpha', made.verificationId, '?include=person');
    assert.equal(person.res.status, 409);

    // The redaction is an event of its own: a receiver that dropped repeats of the completion still hears of it.
    const told = await until('verification.redacted', () =>
      deliveries.find((d) => d.body.data.verificationId === made.verificationId && d.body.type === 'verification.redacted'),
    );
    assert.notEqual(told.id, first.id, 'its own webhook-id');
    assert.equal(told.body.data.customerRef, undefined);
    assert.equal(told.body.data.entityId, undefined);

    const re = await v1(`/v1/verifications/${made.verificationId}/webhook/redeliver`, PARTNERS.alpha.serverKey, { method: 'POST' });
    assert.equal(re.status, 202);
    const queued = (await re.json()) as { webhookId: string; type: string };
    assert.equal(queued.type, 'verification.redacted', 'the last event: the redaction');
    assert.equal(queued.webhookId, told.id, 'the same webhook-id');
    const second = await until('the redelivery', () => {
      const all = deliveries.filter((d) => d.id === told.id);
      return all.length >= 2 ? all.at(-1) : undefined;
    });
    assert.equal(second.body.type, 'verification.redacted');
    assert.equal(second.body.data.customerRef, undefined);
    assert.equal(second.body.data.entityId, undefined);
  });

  it('redeliver before the end is 409 NO_EVENT', async () => {
    const made = await create('alpha', 'acct-early');
    const r = await v1(`/v1/verifications/${made.verificationId}/webhook/redeliver`, PARTNERS.alpha.serverKey, { method: 'POST' });
    assert.equal(r.status, 409);
    assert.equal(((await r.json()) as { errorCode: string }).errorCode, 'NO_EVENT');
  });

  it('lists newest first with cursor paging, this partner’s only', async () => {
    const ref = `acct-page-${crypto.randomUUID().slice(0, 6)}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create('beta', ref)).verificationId);
    const p1 = (await (await v1(`/v1/verifications?customerRef=${ref}&limit=2`, PARTNERS.beta.serverKey)).json()) as {
      data: { verificationId: string }[];
      nextCursor?: string;
    };
    assert.deepEqual(
      p1.data.map((d) => d.verificationId),
      [ids[2], ids[1]],
    );
    assert.ok(p1.nextCursor);
    const p2 = (await (
      await v1(`/v1/verifications?customerRef=${ref}&limit=2&cursor=${p1.nextCursor}`, PARTNERS.beta.serverKey)
    ).json()) as {
      data: { verificationId: string }[];
      nextCursor?: string;
    };
    assert.deepEqual(
      p2.data.map((d) => d.verificationId),
      [ids[0]],
    );
    assert.equal(p2.nextCursor, undefined);
  });
});
