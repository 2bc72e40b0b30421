/**
 * A verification keeps its vendor (docs/vendors.md "Choosing and switching"):
 * recorded at its first link (`vendor`), the link made, renewed and polled
 * through that vendor's adapter, never another; a record made before there
 * was a choice reads as `idv`. Runs the local stack's app in node with the
 * doubles in process (the idv sandbox, the Stripe double).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Env } from '../../worker/lib/env';
import { vendorOf, type Verification } from '../../worker/verifications/verification';
import { indexRow } from '../../worker/verifications/verification-index';
import { nodeApp } from '../support/node-app';
import { nodeEnv } from '../support/node-env';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { adultDateOfBirth } from '../support/dates';
import { newSigningJwk } from '../support/signing-keys';

const WORKER = 'http://127.0.0.1:8787';
const PAGE = 'https://partner.example';
const SIGNING_JWK = await newSigningJwk('vendor-test-key');

/** A local stack whose environment partner uses `vendors` (KYC_VENDOR), its verifications in memory. */
function stack(vendors: string, more: Partial<Env> = {}) {
  const env = nodeEnv({
    KYC_VENDOR: vendors,
    ALLOWED_ORIGINS: PAGE,
    SESSION_SECRET: 'vendor-test-session-secret-0123456789',
    RESULT_SIGNING_KEYS: JSON.stringify([SIGNING_JWK]),
    LIMIT_OPEN_PER_IP: '1000000',
    ...more,
  });
  // The verifications' clock: a poll interval passes when the test says so.
  const clock = {
    t: Date.now(),
    now() {
      return this.t;
    },
  };
  const store = new MemoryVerifications(env, clock);
  useNodeTwins(env, { verifications: store });
  return { env, store, clock };
}

async function post(env: Env, path: string, json: unknown, origin = PAGE) {
  const res = await nodeApp.request(
    `${WORKER}${path}`,
    { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: origin }, body: JSON.stringify(json) },
    env,
  );
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

const details = {
  name: { givenName: 'Ann', familyName: 'Lee' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};

/** The person's choice on the Stripe double's hosted page. */
async function onStripePage(env: Env, url: string, choice: 'verify' | 'fail', code?: string) {
  const form = new URLSearchParams({ choice, ...(code ? { code } : {}) });
  const res = await nodeApp.request(
    url,
    { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form.toString() },
    env,
  );
  assert.ok(res.status === 303 || res.status === 200, `the hosted page answered ${res.status}`);
}

describe('a verification keeps its vendor', () => {
  it('KYC_VENDOR=stripe: the link is a Stripe session, recorded as stripe, polled at Stripe to verified', async () => {
    const { env, store } = stack('stripe');
    const link = await post(env, '/api/onboarding-link', { ...details, returnUrl: `${PAGE}/done` });
    assert.equal(link.status, 200, JSON.stringify(link.json));
    assert.match(link.json.url, /\/sandbox\/stripe\/flow\//);
    const v = await store.execute(link.json.verificationId, { type: 'read' });
    assert.equal(v?.vendor, 'stripe');
    assert.match(v.entityId!, /^vs_/);

    const pending = await post(env, '/api/result', { session: link.json.session });
    assert.equal(pending.status, 200);
    assert.equal(pending.json.resultToken, undefined);

    await onStripePage(env, link.json.url, 'verify');
    const done = await post(env, '/api/result', { session: link.json.session, returned: 'success' });
    assert.equal(done.status, 200, JSON.stringify(done.json));
    assert.equal(typeof done.json.resultToken, 'string');
    const after = await store.execute(link.json.verificationId, { type: 'read' });
    assert.equal(after?.state.name, 'final');
    assert.equal(after?.vendor, 'stripe');
    // The outcome in our words, in the browser's answer and the token's claims (what the widget and a server decide from).
    assert.equal(done.json.status, 'final');
    assert.deepEqual(done.json.result, { outcome: 'verified', vendor: 'stripe', vendorStatus: 'verified' });
    assert.equal(done.json.vendor, 'stripe');
    const claims = JSON.parse(Buffer.from(String(done.json.resultToken).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    assert.deepEqual(claims.result, { outcome: 'verified', vendor: 'stripe', vendorStatus: 'verified' });
    assert.equal(claims.vendor, 'stripe');
    // While open: no result yet, the vendor already known.
    assert.equal(pending.json.status, 'open');
    assert.equal(pending.json.result, undefined);
    assert.equal(pending.json.vendor, 'stripe');
  });

  it('a retryable Stripe code with attempts left is requires_input; the next attempt is a new session at Stripe', async () => {
    const { env, store, clock } = stack('stripe');
    const link = await post(env, '/api/onboarding-link', { ...details, returnUrl: `${PAGE}/done` });
    assert.equal(link.status, 200, JSON.stringify(link.json));
    await onStripePage(env, link.json.url, 'fail', 'document_expired');
    const waiting = await post(env, '/api/result', { session: link.json.session, returned: 'error' });
    assert.equal(waiting.json.status, 'requires_input', JSON.stringify(waiting.json));
    const first = await store.execute(link.json.verificationId, { type: 'read' });

    const next = await post(env, '/api/onboarding-link', { ...details, session: link.json.session, returnUrl: `${PAGE}/done` });
    assert.equal(next.status, 200, JSON.stringify(next.json));
    const second = await store.execute(link.json.verificationId, { type: 'read' });
    assert.equal(second?.vendor, 'stripe');
    assert.equal(second?.state.name, 'open');
    assert.notEqual(second?.entityId, first?.entityId, 'a new session for the next attempt');

    await onStripePage(env, next.json.url, 'verify');
    clock.t += 60_000; // a poll interval later
    const done = await post(env, '/api/result', { session: next.json.session, returned: 'success' });
    assert.equal(typeof done.json.resultToken, 'string', JSON.stringify(done.json));
    assert.equal(done.json.result.outcome, 'verified');
    const final = await store.execute(link.json.verificationId, { type: 'read' });
    assert.deepEqual(
      final?.attempts?.map((a) => a.checkStatus),
      ['document_expired', 'verified'],
    );
  });

  it('switching KYC_VENDOR moves no verification: a renewal of a Stripe one is made at Stripe', async () => {
    const { env, store } = stack('stripe');
    const link = await post(env, '/api/onboarding-link', { ...details, returnUrl: `${PAGE}/done` });
    assert.equal(link.status, 200, JSON.stringify(link.json));
    // The operator switches the partner to idv: the same verifications, a new configuration.
    const switched = nodeEnv({ ...env, KYC_VENDOR: 'idv' });
    useNodeTwins(switched, { verifications: store });
    const renewed = await post(switched, '/api/onboarding-link', { session: link.json.session, returnUrl: `${PAGE}/done` });
    assert.equal(renewed.status, 200, JSON.stringify(renewed.json));
    assert.match(renewed.json.url, /\/sandbox\/stripe\/flow\//);
    const v = await store.execute(link.json.verificationId, { type: 'read' });
    assert.equal(v?.vendor, 'stripe');
    assert.match(v.entityId!, /^vs_/);
    // A new link made now for someone else is idv's.
    const other = await post(switched, '/api/onboarding-link', { ...details, returnUrl: `${PAGE}/done` });
    assert.equal((await store.execute(other.json.verificationId, { type: 'read' }))?.vendor, 'idv');
  });

  it('/v1 shows the vendor once linked, in the single read and in the list (from the index row), as the OpenAPI document says', async () => {
    const SERVER_KEY = `kyc_sk_test_${'v'.repeat(43)}`;
    // The list reads the D1 index: here the index rows of the verifications held, as D1 would answer.
    const held: Verification[] = [];
    const DB = {
      prepare: () => ({ bind: () => ({ all: async () => ({ results: held.map((v) => indexRow(v, false, Date.now())) }) }) }),
    } as unknown as D1Database;
    const { env, store } = stack('stripe', { PARTNER_SERVER_KEYS: SERVER_KEY, DB });
    const asServer = { headers: { Authorization: `Bearer ${SERVER_KEY}` } };
    const created = await nodeApp.request(
      `${WORKER}/v1/verifications`,
      {
        method: 'POST',
        headers: { ...asServer.headers, 'Content-Type': 'application/json', 'Idempotency-Key': 'vendor-in-v1-1' },
        body: JSON.stringify({ customerRef: 'cust-vendor-1' }),
      },
      env,
    );
    assert.equal(created.status, 201);
    const { verificationId: unlinked } = (await created.json()) as { verificationId: string };
    const link = await post(env, '/api/onboarding-link', details);
    assert.equal(link.status, 200, JSON.stringify(link.json));
    for (const id of [link.json.verificationId, unlinked]) held.push((await store.execute(id, { type: 'read' }))!);

    const one = (await (await nodeApp.request(`${WORKER}/v1/verifications/${link.json.verificationId}`, asServer, env)).json()) as Record<
      string,
      unknown
    >;
    assert.equal(one.vendor, 'stripe');
    const notYet = (await (await nodeApp.request(`${WORKER}/v1/verifications/${unlinked}`, asServer, env)).json()) as Record<
      string,
      unknown
    >;
    assert.equal(notYet.vendor, undefined, 'no vendor before the first link');
    const list = await nodeApp.request(`${WORKER}/v1/verifications`, asServer, env);
    assert.equal(list.status, 200);
    const { data } = (await list.json()) as { data: Record<string, unknown>[] };
    assert.deepEqual(
      data.map((d) => [d.verificationId, d.vendor]),
      [
        [link.json.verificationId, 'stripe'],
        [unlinked, undefined],
      ],
    );
    const { openapiDocument } = await import('../../worker/server-api/openapi');
    const doc = JSON.stringify(openapiDocument());
    assert.match(doc, /"VerificationSummary":\{[^]*?"vendor":\{[^}]*"enum":\["idv","stripe"\]/);
  });

  it('KYC_VENDOR=idv (the default): the link is the sandbox entity, recorded as idv', async () => {
    const { env, store } = stack('idv');
    const link = await post(env, '/api/onboarding-link', { ...details, returnUrl: `${PAGE}/done` });
    assert.equal(link.status, 200, JSON.stringify(link.json));
    assert.doesNotMatch(link.json.url, /\/sandbox\/stripe\//);
    const v = await store.execute(link.json.verificationId, { type: 'read' });
    assert.equal(v?.vendor, 'idv');
  });

  it('a record made before there was a choice is idv', () => {
    assert.equal(vendorOf({}), 'idv');
    assert.equal(vendorOf({ vendor: 'stripe' }), 'stripe');
  });
});
