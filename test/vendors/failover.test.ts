/**
 * Failover before start (docs/vendors.md "Failover"): only when a first link
 * is made, only on a vendor fault, never twice for one Idempotency-Key, and a
 * verification keeps the vendor of its first link (a verification started on
 * idv waits for idv). Once idv is known down, a link goes straight to Stripe
 * without asking idv (counted by the operator's `vendor.call` events, not by
 * wall time); the routes' clock is the test's. Runs the local stack's app in
 * node with the doubles in process; the demo's vendor switch takes idv down.
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Env } from '../../worker/lib/env';
import { localApp } from '../../worker/entry/local-app';
import { resetDemoVendors, setOutage } from '../../worker/demo/vendor-switch';
import { resetVendorHealth, VENDOR_DOWN_MS } from '../../worker/vendors/health';
import { rollupsOf } from '../../worker/ops/store';
import type { OpsMessage } from '../../worker/ops/events';
import { deliveriesFor, MemoryVerifications, twinsFor, useNodeTwins } from '../support/node-twins';
import { nodeEnv } from '../support/node-env';
import { adultDateOfBirth } from '../support/dates';
import { newSigningJwk } from '../support/signing-keys';
import { until } from '../support/wait';

const WORKER = 'http://127.0.0.1:8787';
const PAGE = 'https://partner.example';
const SIGNING_JWK = await newSigningJwk('failover-test-key');

/** The routes' and the verifications' clock. */
const clock = {
  t: Date.now(),
  now() {
    return this.t;
  },
};
const app = localApp({ ports: twinsFor, deliveries: deliveriesFor, clock: () => clock.now() });

/** A local stack whose environment partner uses idv then stripe, its events kept. */
function stack(more: Partial<Env> = {}) {
  const sent: OpsMessage[] = [];
  const env = nodeEnv({
    KYC_VENDOR: 'idv,stripe',
    VENDOR_FAILOVER: 'before_start',
    ALLOWED_ORIGINS: PAGE,
    SESSION_SECRET: 'failover-test-session-secret-0123456789',
    RESULT_SIGNING_KEYS: JSON.stringify([SIGNING_JWK]),
    LIMIT_OPEN_PER_IP: '1000000',
    KYC_TIMEOUT_MS: '200',
    EVENTS_QUEUE: {
      send: async (body: OpsMessage) => void sent.push(body),
      sendBatch: async (batch: { body: OpsMessage }[]) => void sent.push(...batch.map((b) => b.body)),
    } as unknown as NonNullable<Env['EVENTS_QUEUE']>,
    ...more,
  });
  const store = new MemoryVerifications(env, clock);
  useNodeTwins(env, { verifications: store });
  return { env, store, sent };
}

async function post(env: Env, path: string, json: unknown, headers: Record<string, string> = {}) {
  const res = await app.request(
    `${WORKER}${path}`,
    { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: PAGE, ...headers }, body: JSON.stringify(json) },
    env,
  );
  return { status: res.status, json: (await res.json()) as Record<string, any>, replayed: res.headers.get('Idempotent-Replayed') };
}

const details = {
  name: { givenName: 'Ann', familyName: 'Lee' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
  returnUrl: `${PAGE}/done`,
};

/** The idv link calls the events counted (the vendor asked, whatever it answered). */
const idvLinkCalls = (sent: OpsMessage[]) =>
  sent.filter((m) => m.type === 'vendor.call' && m.vendor === 'idv' && m.operation === 'vendor-link');
const outcomes = (calls: OpsMessage[]) => calls.map((m) => m.type === 'vendor.call' && m.outcome);
const failovers = (sent: OpsMessage[]) => sent.filter((m) => m.type === 'link.failover');
/** What /ops counts of the events: the rollup rows named `name`. */
const counted = (sent: OpsMessage[], name: string) =>
  sent.flatMap((m) =>
    rollupsOf(m)
      .counts.filter(([n]) => n === name)
      .map(([, dim]) => dim),
  );

afterEach(() => {
  resetDemoVendors();
  resetVendorHealth();
});

describe('failover before start', () => {
  it('idv unreachable at create: stripe makes the link, the record is stripe, one failover counted; a replay does not fail over again', async () => {
    const { env, store, sent } = stack();
    setOutage('idv', 'unreachable');
    const key = { 'Idempotency-Key': 'failover-key-0001' };
    const link = await post(env, '/api/onboarding-link', details, key);
    assert.equal(link.status, 200, JSON.stringify(link.json));
    assert.match(link.json.url, /\/sandbox\/stripe\/flow\//);
    // The return keys are the vendor's that made the link: Stripe's hosted flow appends none (idv's would be two).
    assert.equal(link.json.returnKeys, undefined);
    const v = await store.execute(link.json.verificationId, { type: 'read' });
    assert.equal(v?.vendor, 'stripe');
    await until(() => failovers(sent).length === 1 && sent.some((m) => m.type === 'link.created'), { what: 'the link events' });
    assert.deepEqual(
      failovers(sent).map((m) => m.type === 'link.failover' && [m.from, m.to, m.cause]),
      [['idv', 'stripe', 'network']],
    );
    assert.deepEqual(counted(sent, 'link.failover'), ['idv stripe']);
    assert.deepEqual(counted(sent, 'link.created.vendor'), ['stripe']);

    // idv back up: the same key gives the same answer, with no new link and no second failover.
    setOutage('idv', undefined);
    const again = await post(env, '/api/onboarding-link', details, key);
    assert.equal(again.replayed, 'true');
    assert.equal(again.json.verificationId, link.json.verificationId);
    assert.equal(again.json.url, link.json.url);
    assert.equal(failovers(sent).length, 1);
    assert.equal(idvLinkCalls(sent).length, 1);
  });

  it('a 4xx from idv does not fail over: the person is told, stripe is never asked', async () => {
    // idv refuses our credentials (a 401 of the sandbox): not an outage.
    const { env, sent } = stack({ KYC_API_KEY: 'not-the-sandbox-key', KYC_CUSTOMER_ID: 'no-such-customer' });
    const link = await post(env, '/api/onboarding-link', details);
    assert.equal(link.status, 502, JSON.stringify(link.json));
    assert.equal(link.json.errorCode, 'VENDOR_REJECTED');
    await until(() => idvLinkCalls(sent).length === 1, { what: "idv's link call" });
    assert.deepEqual(outcomes(idvLinkCalls(sent)), ['4xx']);
    assert.equal(failovers(sent).length, 0);
    assert.equal(
      sent.some((m) => m.type === 'vendor.call' && m.vendor === 'stripe'),
      false,
    );
    assert.equal(link.json.verificationId, undefined, 'no verification');
    assert.equal(
      sent.some((m) => m.type === 'link.created'),
      false,
    );
  });

  it('without failover an idv outage is answered (502), not moved to stripe', async () => {
    const { env, sent } = stack({ VENDOR_FAILOVER: 'off' });
    setOutage('idv', 'unreachable');
    const link = await post(env, '/api/onboarding-link', details);
    assert.equal(link.status, 502, JSON.stringify(link.json));
    assert.equal(link.json.errorCode, 'VENDOR_ERROR');
    assert.equal(failovers(sent).length, 0);
  });

  it('a verification started on idv stays on idv when idv goes down: its renewal waits for idv', async () => {
    const { env, store, sent } = stack();
    const link = await post(env, '/api/onboarding-link', details);
    assert.equal(link.status, 200, JSON.stringify(link.json));
    assert.equal((await store.execute(link.json.verificationId, { type: 'read' }))?.vendor, 'idv');
    setOutage('idv', 'unreachable');
    const renewed = await post(env, '/api/onboarding-link', { session: link.json.session, returnUrl: `${PAGE}/done` });
    assert.ok(renewed.status === 502 || renewed.status === 200, JSON.stringify(renewed.json));
    if (renewed.status === 200) assert.doesNotMatch(String(renewed.json.url), /\/sandbox\/stripe\//);
    clock.t += 120_000; // a poll is due: it goes to idv, down
    const polled = await post(env, '/api/result', { session: link.json.session });
    await until(() => sent.some((m) => m.type === 'vendor.call' && m.vendor === 'idv' && m.operation === 'result'), {
      what: "the poll's call to idv",
    });
    // The poll is answered as idv's outage (the person's page tries again later), never from stripe.
    assert.equal(polled.status, 502, JSON.stringify(polled.json));
    const v = await store.execute(link.json.verificationId, { type: 'read' });
    assert.equal(v?.vendor, 'idv');
    assert.equal(v?.state.name, 'open', 'it waits');
    assert.equal(failovers(sent).length, 0);
    assert.equal(
      sent.some((m) => m.type === 'vendor.call' && m.vendor === 'stripe'),
      false,
      'stripe was never asked about it',
    );
  });

  it('once idv is known down the next link does not ask it (no timeout paid); after the window idv is asked again', async () => {
    const { env, store, sent } = stack();
    setOutage('idv', 'timeout');
    // The first request after the outage begins pays idv's timeout once.
    const first = await post(env, '/api/onboarding-link', details);
    assert.equal(first.status, 200, JSON.stringify(first.json));
    await until(() => idvLinkCalls(sent).length === 1, { what: "idv's timed-out link call" });
    assert.deepEqual(outcomes(idvLinkCalls(sent)), ['timeout']);
    // Known down: the next links go straight to stripe, idv not asked.
    for (let i = 0; i < 3; i++) {
      clock.t += 1_000;
      const next = await post(env, '/api/onboarding-link', details);
      assert.equal(next.status, 200, JSON.stringify(next.json));
      assert.equal((await store.execute(next.json.verificationId, { type: 'read' }))?.vendor, 'stripe');
    }
    await until(() => failovers(sent).length === 4, { what: 'four failovers' });
    assert.equal(idvLinkCalls(sent).length, 1, 'idv asked once, by the first request only');
    assert.deepEqual(
      failovers(sent).map((m) => m.type === 'link.failover' && m.cause),
      ['timeout', 'known-down', 'known-down', 'known-down'],
    );
    // The window passes and idv is back: it is asked again, and makes the link.
    clock.t += VENDOR_DOWN_MS;
    setOutage('idv', undefined);
    const back = await post(env, '/api/onboarding-link', details);
    assert.equal(back.status, 200, JSON.stringify(back.json));
    assert.equal((await store.execute(back.json.verificationId, { type: 'read' }))?.vendor, 'idv');
    await until(() => idvLinkCalls(sent).length === 2, { what: "idv's second link call" });
  });

  it('a texted link does not fail over to a vendor that does not text', async () => {
    const { env, sent } = stack();
    setOutage('idv', 'unreachable');
    const link = await post(env, '/api/onboarding-link', { ...details, sendSMS: true });
    assert.equal(link.status, 502, JSON.stringify(link.json));
    assert.equal(failovers(sent).length, 0);
  });
});

describe("the demo's vendor switch (local stack, this machine only)", () => {
  const demoCall = (env: Env, method: 'GET' | 'POST', json?: unknown, ip = '127.0.0.1') =>
    app.request(
      `${WORKER}/sandbox/demo/vendors`,
      {
        method,
        headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': ip },
        ...(json ? { body: JSON.stringify(json) } : {}),
      },
      env,
    );

  it('two clicks: idv then stripe with failover, idv down; the demo partner links at stripe; another machine is refused', async () => {
    const { env, store, sent } = stack({ DEMO: 'on', KYC_VENDOR: 'idv', VENDOR_FAILOVER: 'off' });
    const before = (await (await demoCall(env, 'GET')).json()) as {
      partners: { partnerId: string; vendors: string[]; failover: string }[];
    };
    assert.deepEqual(before.partners[0], {
      partnerId: 'demo-a',
      displayName: 'Harbourline Bank',
      vendors: ['idv'],
      failover: 'off',
      switched: false,
    });

    assert.equal((await demoCall(env, 'POST', { use: 'idv,stripe' }, '203.0.113.9')).status, 404, 'not from this machine');
    assert.equal((await demoCall(env, 'POST', { use: 'idv,stripe' })).status, 200);
    const down = (await (await demoCall(env, 'POST', { down: { vendor: 'idv', outage: 'unreachable' } })).json()) as {
      partners: { vendors: string[]; failover: string }[];
      vendors: { vendor: string; outage: string }[];
    };
    assert.deepEqual(down.partners[0]?.vendors, ['idv', 'stripe']);
    assert.equal(down.partners[0]?.failover, 'before_start');
    assert.deepEqual(down.vendors, [
      { vendor: 'idv', outage: 'unreachable' },
      { vendor: 'stripe', outage: 'up' },
    ]);

    // The demo page is partner A (the worker's own origin, as 127.0.0.1).
    const res = await app.request(
      `${WORKER}/api/onboarding-link`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: WORKER },
        body: JSON.stringify({ ...details, returnUrl: `${WORKER}/` }),
      },
      env,
    );
    const link = (await res.json()) as Record<string, any>;
    assert.equal(res.status, 200, JSON.stringify(link));
    assert.equal((await store.execute(link.verificationId, { type: 'read' }))?.vendor, 'stripe');
    await until(() => failovers(sent).length === 1, { what: 'the failover event' });

    // Back to the deployment's settings, idv up: idv makes the link.
    await demoCall(env, 'POST', { use: 'settings', down: { vendor: 'idv', outage: 'up' } });
    resetVendorHealth();
    const again = await app.request(
      `${WORKER}/api/onboarding-link`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: WORKER },
        body: JSON.stringify({ ...details, returnUrl: `${WORKER}/` }),
      },
      env,
    );
    const back = (await again.json()) as Record<string, any>;
    assert.equal(again.status, 200, JSON.stringify(back));
    assert.equal((await store.execute(back.verificationId, { type: 'read' }))?.vendor, 'idv');
  });
});
