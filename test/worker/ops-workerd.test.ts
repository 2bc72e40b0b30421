/**
 * The operator console in workerd, with a real local Queue and D1: the
 * widget's beacon is counted per partner through the events queue into the
 * hourly rollups; a message delivered twice counts once; the scheduled
 * clean-up keeps 13 months of rollups and 30 days of attempts; /ops answers
 * as each access configuration says (open on the local sandbox, 404 when a
 * deployment configured nothing, 401 without the token or a valid Cloudflare
 * Access assertion).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';
import * as wait from '../support/wait';

type Funnel = {
  from: string;
  to: string;
  partners: { partnerId: string; shown: number; linkCreated: number; final: number; byCheckStatus: Record<string, number> }[];
};

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, w?: MiniflareWorker, ms = 30_000): Promise<T> {
  let last: T | undefined;
  const seen = await wait.until(async () => ((last = await get()), ok(last) && { last }), {
    what,
    timeoutMs: ms,
    detail: () => `${JSON.stringify(last)}\n${w?.output().slice(-2000) ?? ''}`,
  });
  return seen.last;
}

describe('ops in workerd (local sandbox: open on loopback)', () => {
  let w: MiniflareWorker;
  before(async () => {
    w = await startMiniflareWorker();
  });
  after(() => w?.dispose());

  const funnel = async (q = '') => (await (await fetch(`${w.url}/ops/api/funnel${q}`)).json()) as Funnel;
  const beaconFrom = (origin: string) =>
    fetch(`${w.url}/api/beacon`, { method: 'POST', headers: { Origin: origin, 'Content-Type': 'text/plain' }, body: '1' });

  it('counts each beacon once for the page’s partner; refuses pages of no partner', async () => {
    const localhost = w.url.replace('127.0.0.1', 'localhost');
    for (let i = 0; i < 2; i++) assert.equal((await beaconFrom(w.url)).status, 204);
    // An endpoint written with a trailing slash (`.../api/`): the widget's beacon goes to /api//beacon.
    const slash = await fetch(`${w.url}/api//beacon`, { method: 'POST', headers: { Origin: w.url }, body: '' });
    assert.equal(slash.status, 204);
    assert.equal((await beaconFrom(localhost)).status, 204);
    const refused = await beaconFrom('https://elsewhere.example');
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('Set-Cookie'), null);
    const f = await until(
      'the beacons in the rollups',
      () => funnel(),
      (f) => f.partners.reduce((s, p) => s + p.shown, 0) >= 4,
      w,
    );
    assert.deepEqual(
      f.partners.map((p) => [p.partnerId, p.shown]),
      [
        ['demo-a', 3],
        ['demo-b', 1],
      ],
    );
    const only = await funnel('?partner=demo-b');
    assert.deepEqual(
      only.partners.map((p) => p.partnerId),
      ['demo-b'],
    );
  });

  it('a queue message delivered twice counts once', async () => {
    const worker = await w.mf.getWorker();
    const at = Date.now();
    const body = {
      id: `evt_${crypto.randomUUID().replace(/-/g, '')}`,
      at,
      partnerId: 'dup-partner',
      type: 'verification.final',
      checkStatus: 'CHECKED_FAILED',
      secondsSinceLink: 42,
    };
    const msg = { id: 'm1', timestamp: new Date(), body, attempts: 1 };
    await worker.queue('kyc-ops-events', [msg, { ...msg, id: 'm2' }]);
    await worker.queue('kyc-ops-events', [{ ...msg, id: 'm3', attempts: 2 }]);
    const other = { ...body, id: `evt_${crypto.randomUUID().replace(/-/g, '')}`, checkStatus: 'NO_MATCH', secondsSinceLink: 100 };
    await worker.queue('kyc-ops-events', [{ ...msg, id: 'm4', body: other }]);
    const f = await funnel('?partner=dup-partner');
    assert.equal(f.partners.length, 1);
    const p = f.partners[0]! as Funnel['partners'][number] & { medianSecondsToFinal: number };
    assert.equal(p.final, 2);
    assert.deepEqual(p.byCheckStatus, { CHECKED_FAILED: 1, NO_MATCH: 1 });
    assert.equal(p.medianSecondsToFinal, 42);
  });

  it('the clean-up keeps 13 months of rollups and 30 days of webhook attempts', async () => {
    const worker = await w.mf.getWorker();
    const db = await w.mf.getD1Database('DB');
    const now = Date.now();
    const day = 86_400_000;
    const events = [
      { at: now - 14 * 31 * day, type: 'widget.shown' }, // past 13 months: goes
      { at: now - 12 * 30 * day, type: 'widget.shown' }, // inside: stays
      {
        at: now - 31 * day,
        type: 'webhook.attempt',
        verificationId: 'vrf_OLD',
        webhookType: 'verification.completed',
        attempt: 1,
        status: 500,
        ms: 12,
        result: 'retry',
      },
      {
        at: now - 2 * day,
        type: 'webhook.attempt',
        verificationId: 'vrf_NEW',
        webhookType: 'verification.completed',
        attempt: 1,
        status: 500,
        ms: 12,
        result: 'dead',
      },
    ].map((e, i) => ({
      id: `c${i}`,
      timestamp: new Date(),
      attempts: 1,
      body: { ...e, id: `evt_cleanup_${i}_${now}`, partnerId: 'keep-partner' },
    }));
    await worker.queue('kyc-ops-events', events);
    const count = async (sql: string) => ((await db.prepare(sql).first<{ n: number }>()) ?? { n: -1 }).n;
    assert.equal(await count(`SELECT SUM(n) AS n FROM ops_counts WHERE partner_id = 'keep-partner' AND name = 'widget.shown'`), 2);
    assert.equal(await count(`SELECT COUNT(*) AS n FROM ops_webhook_attempts WHERE partner_id = 'keep-partner'`), 2);
    // Delivery rows are the verifications' outboxes' (not the counted attempts'): one last touched 31 days ago, one 2 days ago.
    for (const [vid, at] of [
      ['vrf_OLD', now - 31 * day],
      ['vrf_NEW', now - 2 * day],
    ] as const)
      await db
        .prepare(
          `INSERT INTO ops_webhook_deliveries (verification_id, type, partner_id, state, attempts, last_status, last_failure, last_attempt_at)
           VALUES (?, 'verification.completed', 'keep-partner', 'dead', 1, 500, NULL, ?)`,
        )
        .bind(vid, at)
        .run();
    await worker.scheduled({ scheduledTime: new Date(now), cron: '17 3 * * *' });
    assert.equal(await count(`SELECT SUM(n) AS n FROM ops_counts WHERE partner_id = 'keep-partner' AND name = 'widget.shown'`), 1);
    assert.equal(await count(`SELECT COUNT(*) AS n FROM ops_webhook_attempts WHERE partner_id = 'keep-partner'`), 1);
    assert.equal(await count(`SELECT COUNT(*) AS n FROM ops_webhook_deliveries WHERE verification_id = 'vrf_OLD'`), 0);
    assert.equal(await count(`SELECT COUNT(*) AS n FROM ops_webhook_deliveries WHERE verification_id = 'vrf_NEW'`), 1);
  });

  it('the page and the JSON are never cached, under a strict CSP; bad parameters are 400s naming the field', async () => {
    const page = await fetch(`${w.url}/ops?range=24h`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('Content-Type') ?? '', /text\/html/);
    assert.equal(page.headers.get('Cache-Control'), 'no-store');
    const csp = page.headers.get('Content-Security-Policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /script-src|unsafe-inline/);
    assert.doesNotMatch(await page.text(), /<script/i);
    const bad = await fetch(`${w.url}/ops/api/funnel?from=yesterday`);
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { issues: { issueLocation: string }[] }).issues[0]!.issueLocation, 'from');
    const state = await fetch(`${w.url}/ops/api/webhooks?state=maybe`);
    assert.equal(state.status, 400);
    assert.equal((await fetch(`${w.url}/ops/api/webhooks?state=all`)).headers.get('Cache-Control'), 'no-store');
  });

  it('a POST from another site (CSRF) is refused; redelivering what does not exist is a 404', async () => {
    const vid = 'vrf_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const cross = await fetch(`${w.url}/ops/api/webhooks/${vid}/redeliver`, {
      method: 'POST',
      headers: { 'Sec-Fetch-Site': 'cross-site' },
    });
    assert.equal(cross.status, 403);
    const foreign = await fetch(`${w.url}/ops/redeliver`, {
      method: 'POST',
      headers: { Origin: 'https://evil.example', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `verificationId=${vid}`,
    });
    assert.equal(foreign.status, 403);
    assert.equal((await fetch(`${w.url}/ops/api/webhooks/${vid}/redeliver`, { method: 'POST' })).status, 404);
    assert.equal((await fetch(`${w.url}/ops/api/webhooks/not-an-id/redeliver`, { method: 'POST' })).status, 400);
  });
});

describe('what the local stack opens for this machine only: decided by the connection, not the Host header', () => {
  it('a client on the network claiming Host 127.0.0.1 gets neither the open console, the demo’s server keys, the sandbox’s outcomes nor its vendor API', async () => {
    const w = await startMiniflareWorker({ vars: { DEMO: 'on' } });
    try {
      // From this machine (workerd passes the connection's address): open.
      assert.equal((await fetch(`${w.url}/ops/api/funnel`)).status, 200);
      assert.equal((await fetch(`${w.url}/sandbox/demo/server-keys`)).status, 200);
      // A client on the network reaches the same port with `Host: 127.0.0.1`; its address is its own.
      const fromNetwork = { 'CF-Connecting-IP': '192.168.1.20', Host: new URL(w.url).host };
      assert.equal((await fetch(`${w.url}/ops/api/funnel`, { headers: fromNetwork })).status, 404);
      assert.equal((await fetch(`${w.url}/sandbox/demo/server-keys`, { headers: fromNetwork })).status, 404);
      // Nor the sandbox's outcomes on demand, nor its vendor API with the public default credentials (issue 40).
      const outcome = (headers: Record<string, string>) =>
        fetch(`${w.url}/sandbox/verifications/vrf_01ARZ3NDEKTSV4RRFFQ69G5FAV/complete`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: JSON.stringify({ status: 'CHECKED_SUCCESS_CLEAR' }),
        });
      const search = (headers: Record<string, string>) =>
        fetch(`${w.url}/sandbox/v2/kyc/entity/search`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: JSON.stringify({ name: { familyName: 'Nobody', givenName: 'Here' } }),
        });
      const mine = await outcome({});
      assert.match(((await mine.json()) as { errorMsg: string }).errorMsg, /No such verification/, 'this machine reaches the route');
      const theirs = await outcome(fromNetwork);
      assert.equal(theirs.status, 404);
      assert.match(((await theirs.json()) as { errorMsg: string }).errorMsg, /There is nothing here/);
      assert.notEqual((await search({})).status, 404, 'this machine reaches the vendor API');
      const searched = await search(fromNetwork);
      assert.equal(searched.status, 404);
      assert.match(((await searched.json()) as { errorMsg: string }).errorMsg, /There is nothing here/);
    } finally {
      await w.dispose();
    }
    // Listening on the network (`HOST=0.0.0.0 npm start`): a client may claim 127.0.0.1 as its address too, so nothing opens.
    const open = await startMiniflareWorker({ vars: { DEMO: 'on', LISTEN_HOST: '0.0.0.0' } });
    try {
      const claimed = { 'CF-Connecting-IP': '127.0.0.1' };
      assert.equal((await fetch(`${open.url}/ops/api/funnel`, { headers: claimed })).status, 404);
      assert.equal((await fetch(`${open.url}/sandbox/demo/server-keys`, { headers: claimed })).status, 404);
    } finally {
      await open.dispose();
    }
  });
});

describe('ops access in a deployment', () => {
  it('neither OPS_TOKEN nor Access configured: /ops is 404 (a real vendor, or a non-loopback public origin)', async () => {
    const w = await startMiniflareWorker({ vars: { KYC_BASE_URL: 'https://vendor.invalid' } });
    try {
      for (const path of ['/ops', '/ops/api/funnel', '/ops/api/webhooks?state=dead'])
        assert.equal((await fetch(w.url + path)).status, 404, path);
    } finally {
      await w.dispose();
    }
    const demo = await startMiniflareWorker({ vars: { PUBLIC_ORIGIN: 'https://kyc.example.com', DEMO: 'on' } });
    try {
      assert.equal((await fetch(`${demo.url}/ops`)).status, 404);
    } finally {
      await demo.dispose();
    }
  });

  it('OPS_TOKEN: missing or wrong is 401 with WWW-Authenticate, the right one opens it (also on the local sandbox)', async () => {
    const token = 'ops_' + crypto.randomUUID();
    const w = await startMiniflareWorker({ vars: { OPS_TOKEN: token } });
    try {
      const none = await fetch(`${w.url}/ops/api/funnel`);
      assert.equal(none.status, 401);
      assert.match(none.headers.get('WWW-Authenticate') ?? '', /^Bearer/);
      assert.equal((await fetch(`${w.url}/ops`, { headers: { Authorization: `Bearer ${token}x` } })).status, 401);
      assert.equal((await fetch(`${w.url}/ops`, { headers: { Authorization: `Bearer ${token.slice(0, -1)}` } })).status, 401);
      assert.equal((await fetch(`${w.url}/ops/api/funnel`, { headers: { Authorization: `Bearer ${token}` } })).status, 200);
    } finally {
      await w.dispose();
    }
  });

  it('OPS_TOKEN: 40 wrong tokens from one client meet a 429, then its right token waits too; other clients are not held', async () => {
    const token = 'ops_' + crypto.randomUUID();
    const w = await startMiniflareWorker({ vars: { OPS_TOKEN: token } });
    const as = (ip: string, t: string) =>
      fetch(`${w.url}/ops/api/funnel`, { headers: { Authorization: `Bearer ${t}`, 'CF-Connecting-IP': ip } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await as('198.51.100.40', `wrong-${i}-${token}`)).status);
      assert.ok(statuses.includes(429), `40 wrong tokens met no 429: ${[...new Set(statuses)].join(', ')}`);
      const limited = await as('198.51.100.40', token);
      assert.equal(limited.status, 429);
      assert.equal(((await limited.json()) as { errorCode: string }).errorCode, 'RATE_LIMITED');
      assert.equal((await as('198.51.100.41', token)).status, 200, 'another client');
    } finally {
      await w.dispose();
    }
  });

  it('an OPS_TOKEN under 32 characters is refused: 500 MISCONFIGURED naming OPS_TOKEN, even to the right token', async () => {
    const short = 'abcd1234';
    const w = await startMiniflareWorker({ vars: { OPS_TOKEN: short } });
    try {
      for (const headers of [{}, { Authorization: `Bearer ${short}` }] as Record<string, string>[]) {
        const res = await fetch(`${w.url}/ops/api/funnel`, { headers });
        assert.equal(res.status, 500);
        const body = (await res.json()) as { errorCode: string; issues: { issueLocation: string }[] };
        assert.equal(body.errorCode, 'MISCONFIGURED');
        assert.deepEqual(
          body.issues.map((i) => i.issueLocation),
          ['OPS_TOKEN'],
        );
        assert.ok(!JSON.stringify(body).includes(short), 'the token is not in the answer');
      }
    } finally {
      await w.dispose();
    }
  });

  it('Cloudflare Access: only an assertion signed by the team’s key, for this audience, unexpired, opens it', async () => {
    const team = 'kyc-team.cloudflareaccess.com';
    const aud = 'a'.repeat(64);
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const other = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    let certFetches = 0;
    const w = await startMiniflareWorker({
      vars: {
        KYC_BASE_URL: 'https://vendor.invalid',
        PUBLIC_ORIGIN: 'https://kyc.example.com',
        OPS_ACCESS_TEAM_DOMAIN: team,
        OPS_ACCESS_AUD: aud,
      },
      outbound: (req) => {
        const u = new URL(req.url);
        if (u.host === team && u.pathname === '/cdn-cgi/access/certs') {
          certFetches++;
          return Response.json({ keys: [jwk], public_cert: { kid: 'k1', cert: '' }, public_certs: [] });
        }
        return new Response('no', { status: 502 });
      },
    });
    const sign = (key: CryptoKey | Parameters<SignJWT['sign']>[0], claims: { aud?: string; iss?: string; exp?: number }) =>
      new SignJWT({ email: 'ops@example.com' })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(claims.iss ?? `https://${team}`)
        .setAudience(claims.aud ?? aud)
        .setIssuedAt()
        .setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 300)
        .sign(key);
    const get = (assertion?: string) =>
      fetch(`${w.url}/ops/api/webhooks?state=all`, { headers: assertion ? { 'Cf-Access-Jwt-Assertion': assertion } : {} });
    try {
      assert.equal((await get()).status, 401, 'no assertion');
      assert.equal((await get('not.a.jwt')).status, 401, 'garbage');
      assert.equal((await get(await sign(other.privateKey, {}))).status, 401, 'another key');
      const good = await sign(privateKey, {});
      const [, payload] = good.split('.');
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'k1' })).toString('base64url')}.${payload}.`;
      assert.equal((await get(none)).status, 401, 'alg none');
      const [h, , sig] = good.split('.');
      const forged = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), email: 'x@evil.example' }),
      ).toString('base64url');
      assert.equal((await get(`${h}.${forged}.${sig}`)).status, 401, 'claims changed after signing');
      assert.equal((await get(await sign(privateKey, { aud: 'b'.repeat(64) }))).status, 401, 'another audience');
      assert.equal((await get(await sign(privateKey, { iss: 'https://other.cloudflareaccess.com' }))).status, 401, 'another team');
      assert.equal((await get(await sign(privateKey, { exp: Math.floor(Date.now() / 1000) - 120 }))).status, 401, 'expired');
      const ok = await get(await sign(privateKey, {}));
      assert.equal(ok.status, 200, await ok.clone().text());
      assert.deepEqual(await ok.json(), { data: [] });
      assert.ok(certFetches >= 1, 'the team’s keys were fetched');
    } finally {
      await w.dispose();
    }
  });
});

describe('a deployment without the EVENTS_QUEUE binding (issue 40: its events were dropped with no word)', () => {
  it('ruok says so in a warning, /ops shows it, and the log has events_queue_missing', async () => {
    const w = await startMiniflareWorker({ without: ['EVENTS_QUEUE'] });
    try {
      const ruok = await fetch(`${w.url}/api/ruok`);
      assert.equal(ruok.status, 200);
      const body = (await ruok.json()) as { status: string; warnings?: { issueLocation: string }[] };
      assert.equal(body.status, 'OK');
      assert.deepEqual(
        body.warnings?.map((i) => i.issueLocation),
        ['EVENTS_QUEUE'],
      );
      // The console (open to this machine on the local sandbox) says it above everything.
      const page = await (await fetch(`${w.url}/ops`)).text();
      assert.match(page, /role="alert">Warning: EVENTS_QUEUE is not bound/);
      // ruok's vendor call was an event, dropped: the log says so.
      await wait.until(() => w.logs.some((l) => l.includes('events_queue_missing')), {
        what: 'the events_queue_missing log line',
        detail: () => w.output().slice(-2000),
      });
    } finally {
      await w.dispose();
    }
  });
});
