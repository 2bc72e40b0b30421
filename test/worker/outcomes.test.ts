/**
 * Trusted outcomes in node, with a controlled clock: verifications, the
 * result token against the JWKS (verified with `jose`), rotation, binding to
 * the session's entity (VENDOR_MISMATCH), polling at most once per interval,
 * the alarm's own polling and expiry, and the webhook events they produce.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { http, HttpResponse } from 'msw';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { Env } from '../../worker/lib/env';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import {
  baseEnv,
  call,
  linkAnswer,
  newSigningJwk,
  okVendor,
  PARTNER,
  person,
  SIGNING_JWK,
  startHarness,
  stopHarness,
  VENDOR,
  vendor,
  vendorRequests,
  WORKER,
} from './harness';
import { flat } from '../support/state-view';

const RESULT = `${VENDOR}/idv/v2/idvalidate/result`;

/** An env of its own with a controlled clock behind its verifications. */
function stack(over: Partial<Env> = {}) {
  const env: Env = { ...baseEnv, RESULT_POLL_SECONDS: '30', VERIFICATION_GRACE_SECONDS: '900', ...over };
  let now = Date.now();
  const store = new MemoryVerifications(env, { now: () => now });
  useNodeTwins(env, { verifications: store });
  return {
    env,
    store,
    advance: (ms: number) => void (now += ms),
    async link(body: Record<string, unknown> = person) {
      const res = await call('/api/onboarding-link', { method: 'POST', json: body }, env);
      assert.equal(res.status, 200, res.text);
      vendorRequests.length = 0;
      return res.json as { session: string; verificationId: string; urlExpiry: string };
    },
    result: (json: Record<string, unknown>, origin = PARTNER) =>
      call('/api/result', { method: 'POST', json, headers: { Origin: origin } }, env),
    jwks: async () => (await call('/.well-known/jwks.json', {}, env)).json,
  };
}

/** A vendor whose result answers `status` (and counts the calls). */
function resultVendor(status: () => string, entityId = linkAnswer.entity.entityId) {
  vendor(
    okVendor[0]!,
    http.post(RESULT, async ({ request }) => {
      vendorRequests.push({ method: 'POST', url: request.url, headers: {}, body: await request.json() });
      return HttpResponse.json({ checkStatus: status(), entity: { entityId } });
    }),
  );
}

before(startHarness);
after(stopHarness);
beforeEach(() => vendor(...okVendor));

describe('result token', () => {
  it('verifies against the JWKS with jose, with the contract claims', async () => {
    const s = stack();
    const { session, verificationId } = await s.link({ ...person, customerRef: 'acct-981' });
    const res = await s.result({ session, checkId: 'chk-1' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.verificationId, verificationId);
    const jwks = await call('/.well-known/jwks.json', {}, s.env);
    assert.equal(jwks.status, 200);
    assert.equal(jwks.headers.get('Cache-Control'), 'public, max-age=300');
    assert.deepEqual(Object.keys(jwks.json.keys[0]).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']); // no `d`
    const header = decodeProtectedHeader(res.json.resultToken);
    assert.deepEqual(header, { alg: 'ES256', kid: 'test-key-1', typ: 'kyc-result+jwt' });
    const { payload } = await jwtVerify(res.json.resultToken, createLocalJWKSet(jwks.json), {
      issuer: WORKER,
      audience: PARTNER,
      algorithms: ['ES256'],
      typ: 'kyc-result+jwt',
    });
    assert.equal(payload.sub, verificationId);
    assert.equal(payload.entity_id, linkAnswer.entity.entityId);
    assert.equal(payload.check_status, 'CHECKED_SUCCESS_CLEAR');
    assert.equal(payload.customer_ref, 'acct-981');
    assert.ok(payload.exp! > payload.iat! && payload.exp! - payload.iat! <= 15 * 60);
    assert.equal(payload.jti, `${verificationId}.result`);
    assert.equal(payload.livemode, true, 'a real vendor: a live outcome');
    // Asked again: the same outcome claims, and no second vendor call.
    const again = await s.result({ session });
    const p2 = (await jwtVerify(again.json.resultToken, createLocalJWKSet(jwks.json))).payload;
    assert.deepEqual([p2.sub, p2.check_status, p2.jti, p2.aud], [payload.sub, payload.check_status, payload.jti, payload.aud]);
    assert.equal(vendorRequests.filter((r) => r.url === RESULT).length, 1);
  });

  it('publishes every configured key; a token of the old key verifies while it is published', async () => {
    const old = stack();
    const { session } = await old.link();
    const oldToken = (await old.result({ session, checkId: 'c' })).json.resultToken;
    const second = await newSigningJwk('test-key-2');
    const rotated = stack({ RESULT_SIGNING_KEYS: JSON.stringify([second, SIGNING_JWK]) });
    const jwks = await rotated.jwks();
    assert.deepEqual(
      jwks.keys.map((k: { kid: string }) => k.kid),
      ['test-key-2', 'test-key-1'],
    );
    await jwtVerify(oldToken, createLocalJWKSet(jwks)); // still verifies
    const { session: s2 } = await rotated.link();
    const newToken = (await rotated.result({ session: s2, checkId: 'c' })).json.resultToken;
    assert.equal(decodeProtectedHeader(newToken).kid, 'test-key-2');
    // Once the old key is gone from the JWKS, its tokens no longer verify.
    const only = await stack({ RESULT_SIGNING_KEYS: JSON.stringify([second]) }).jwks();
    await assert.rejects(jwtVerify(oldToken, createLocalJWKSet(only)));
  });

  it('is never issued while the check runs', async () => {
    const s = stack();
    resultVendor(() => 'CHECKING');
    const { session } = await s.link();
    const res = await s.result({ session });
    // `status` and `vendor` joined the answer with the second vendor (docs/vendors.md); still no token, no result.
    assert.deepEqual(Object.keys(res.json).sort(), ['checkStatus', 'status', 'vendor', 'verificationId']);
    assert.equal(res.json.checkStatus, 'CHECKING');
    assert.equal(res.json.status, 'open');
  });

  it('answers 500 MISCONFIGURED, before any vendor call, with a real vendor and no or broken keys', async () => {
    for (const keys of [undefined, '', '[]', 'not json', JSON.stringify([{ kty: 'EC', kid: 'x' }])]) {
      const s = stack({ RESULT_SIGNING_KEYS: keys });
      const res = await call('/api/onboarding-link', { method: 'POST', json: person }, s.env);
      assert.equal(res.status, 500, String(keys));
      assert.equal(res.json.errorCode, 'MISCONFIGURED');
      assert.equal(vendorRequests.length, 0);
    }
  });

  it('answers 500 MISCONFIGURED when two keys share a kid (a verifier could pick either)', async () => {
    const twin = await newSigningJwk(SIGNING_JWK.kid);
    const s = stack({ RESULT_SIGNING_KEYS: JSON.stringify([SIGNING_JWK, twin]) });
    const res = await call('/api/onboarding-link', { method: 'POST', json: person }, s.env);
    assert.equal(res.status, 500);
    assert.equal(res.json.errorCode, 'MISCONFIGURED');
    assert.equal(vendorRequests.length, 0);
  });

  it('answers 500 MISCONFIGURED with a real vendor and no PUBLIC_ORIGIN', async () => {
    const s = stack({ PUBLIC_ORIGIN: undefined });
    const res = await call('/api/onboarding-link', { method: 'POST', json: person }, s.env);
    assert.equal(res.status, 500);
    assert.equal(res.json.errorCode, 'MISCONFIGURED');
  });
});

describe('binding to the session', () => {
  it('refuses a vendor answer about another entity with 502 VENDOR_MISMATCH, logged with the verification id', async () => {
    const s = stack();
    resultVendor(() => 'CHECKED_SUCCESS_CLEAR', 'someone-elses-entity');
    const { session, verificationId } = await s.link();
    const lines: string[] = [];
    const error = console.error;
    console.error = (...a: unknown[]) => void lines.push(a.map(String).join(' '));
    try {
      const res = await s.result({ session, checkId: 'chk-of-another' });
      assert.equal(res.status, 502, res.text);
      assert.equal(res.json.errorCode, 'VENDOR_MISMATCH');
      assert.ok(!('resultToken' in res.json));
    } finally {
      console.error = error;
    }
    assert.ok(
      lines.some((l) => l.includes('vendor_mismatch') && l.includes(verificationId)),
      lines.join('\n'),
    );
    assert.equal(flat(s.store.records.get(verificationId)!).status, 'CHECKING'); // nothing credited
  });
});

describe('polling', () => {
  it('takes a vendor 404 for the check as not finished yet, not as a fault', async () => {
    const s = stack();
    const { session } = await s.link();
    vendor(
      okVendor[0]!,
      http.post(RESULT, () =>
        HttpResponse.json({ errorCode: 'NOT_FOUND', errorMsg: 'no check', issues: [], requestId: 'v' }, { status: 404 }),
      ),
    );
    const res = await s.result({ session, checkId: 'not-yet' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.checkStatus, 'CHECKING');
  });

  it('asks the vendor at most once per RESULT_POLL_SECONDS however many browsers poll; a return asks at once', async () => {
    const s = stack();
    let status = 'CHECKING';
    resultVendor(() => status);
    const { session } = await s.link();
    const calls = () => vendorRequests.filter((r) => r.url === RESULT).length;
    await Promise.all(Array.from({ length: 10 }, () => s.result({ session })));
    assert.equal(calls(), 1);
    s.advance(29_000);
    await s.result({ session });
    assert.equal(calls(), 1);
    s.advance(1_000);
    await s.result({ session });
    assert.equal(calls(), 2);
    // The person comes back from the hosted flow with its check id: asked at once.
    status = 'CHECKED_FAILED';
    const back = await s.result({ session, checkId: 'chk-9' });
    assert.equal(calls(), 3);
    assert.equal(back.json.checkStatus, 'CHECKED_FAILED');
    // The browser's check id only made the worker ask sooner: the vendor is asked about the entity alone.
    assert.deepEqual(vendorRequests.at(-1)!.body, {
      entity: { entityId: linkAnswer.entity.entityId },
      provider: 'provider-x',
    });
  });

  it('20 distinct checkIds cost at most a couple of vendor calls, and leave the alarm its polls to find a real pass', async () => {
    const s = stack();
    let status = 'CHECKING';
    resultVendor(() => status);
    const { session, verificationId } = await s.link();
    const calls = () => vendorRequests.filter((r) => r.url === RESULT).length;
    await s.result({ session }); // the first look: one regular poll
    assert.equal(calls(), 1);
    for (let i = 0; i < 20; i++) await s.result({ session, checkId: `made-up-${i}` });
    assert.ok(calls() <= 1 + 2, `a hint is a return, not a key to the vendor: ${calls()} calls`);
    const v = s.store.records.get(verificationId)!;
    assert.equal(v.polls, 1, 'the hints spent none of the polls the alarm needs');
    // The real pass is still found on the regular schedule.
    status = 'CHECKED_SUCCESS_CLEAR';
    s.advance(31_000); // past the first alarm (set on the worker's clock when the link was made)
    await s.store.runDueAlarms();
    assert.equal(flat(s.store.records.get(verificationId)!).status, 'CHECKED_SUCCESS_CLEAR');
  });

  it('finds the outcome by itself (alarm) and queues one verification.completed, nothing personal in it', async () => {
    const s = stack();
    let status = 'CHECKING';
    resultVendor(() => status);
    const { verificationId } = await s.link({ ...person, customerRef: 'acct-1' });
    s.advance(30_000);
    await s.store.runDueAlarms();
    assert.equal(flat(s.store.records.get(verificationId)!).status, 'CHECKING');
    assert.equal(s.store.events.length, 0);
    status = 'CHECKED_SUCCESS_WITH_NOTES';
    s.advance(30_000);
    await s.store.runDueAlarms();
    assert.equal(s.store.events.length, 1);
    const e = s.store.events[0]!;
    assert.equal(e.type, 'verification.completed');
    assert.equal(e.id, `msg_${verificationId.slice(4)}_completed`);
    const body = JSON.parse(e.body);
    assert.deepEqual(Object.keys(body).sort(), ['data', 'timestamp', 'type']);
    const v = s.store.records.get(verificationId)!;
    const iso = (t: number) => new Date(t).toISOString();
    assert.deepEqual(body.data, {
      verificationId,
      entityId: linkAnswer.entity.entityId,
      // The whole public state at the event, as GET /v1 shows it.
      status: 'final',
      checkStatus: 'CHECKED_SUCCESS_WITH_NOTES',
      // The outcome in our words (docs/vendors.md).
      result: { outcome: 'verified', reason: 'with_notes', vendor: 'idv', vendorStatus: 'CHECKED_SUCCESS_WITH_NOTES' },
      attempts: [{ checkStatus: 'CHECKED_SUCCESS_WITH_NOTES', endedAt: iso(flat(v).finalAt!) }],
      createdAt: iso(v.createdAt),
      linkCreatedAt: iso(v.linkCreatedAt!),
      finalAt: iso(flat(v).finalAt!),
      expiresAt: iso(v.deadline),
      customerRef: 'acct-1',
      // The browser path: a page set it, so receivers match by verificationId.
      customerRefSource: 'page',
      partnerOrigin: PARTNER,
      redacted: false,
      livemode: true, // a real vendor
    });
    for (const secret of [person.name.givenName, person.name.familyName, person.dateOfBirth, '412345678'])
      assert.ok(!e.body.includes(secret));
    // No more polls, no second event.
    const before = vendorRequests.length;
    s.advance(60_000);
    await s.store.runDueAlarms();
    assert.equal(vendorRequests.length, before);
    assert.equal(s.store.events.length, 1);
  });

  it('ends a verification that never finishes as verification.expired (not_finished) at link expiry plus grace', async () => {
    const s = stack({ VERIFICATION_GRACE_SECONDS: '600' });
    resultVendor(() => 'CHECKING');
    const { verificationId, urlExpiry } = await s.link();
    const deadline = Date.parse(urlExpiry) + 600_000;
    const v = s.store.records.get(verificationId)!;
    assert.equal(v.deadline, deadline);
    let polls = 0;
    while (flat(s.store.records.get(verificationId)!).expiredAt === undefined) {
      s.advance(30_000);
      await s.store.runDueAlarms();
      assert.ok(++polls < 1000, 'polling stops');
    }
    const ended = s.store.records.get(verificationId)!;
    assert.ok(flat(ended).expiredAt! >= deadline);
    assert.equal(s.store.events.length, 1);
    const body = JSON.parse(s.store.events[0]!.body);
    assert.equal(body.type, 'verification.expired');
    assert.equal(body.data.reason, 'not_finished');
    // The public state at the event: expired, and no final status (the last one the vendor gave, if any, was not final).
    assert.equal(body.data.status, 'expired');
    assert.ok(body.data.checkStatus === undefined || body.data.checkStatus === 'CHECKING', String(body.data.checkStatus));
    // Its polls were bounded by its lifetime at the interval.
    assert.ok(ended.polls <= Math.ceil((deadline - v.createdAt) / 30_000) + 3, String(ended.polls));
  });
});
