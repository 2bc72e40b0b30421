/**
 * `/v1` cancel and redact reach Stripe (docs/vendors.md "Cancel and redact at
 * the vendor"): cancel stops the session at Stripe first (a fault there:
 * 502/504 and nothing changes here); redact erases every session of the
 * verification at Stripe and ours whatever Stripe answered (a fault: ours is
 * redacted, the session id alone kept, the route answers the fault, and a
 * redact again asks Stripe again). The local stack's app in node, the Stripe
 * double in process (made to fail by wrapping it).
 */
import { afterEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import type { Env } from '../../worker/lib/env';
import { sandbox } from '../../sandbox/app';
import { STRIPE_SANDBOX_KEY } from '../../sandbox/stripe/app';
import type { MemoryVerifications } from '../support/node-twins';
import { details, PAGE, post, stripePartnerStack, WORKER } from '../support/stripe-partner';

const SERVER_KEY = `kyc_sk_test_${'v'.repeat(43)}`;
const asServer = { Authorization: `Bearer ${SERVER_KEY}` };

const stack = () => stripePartnerStack('at-vendor', SERVER_KEY);

/** The session as Stripe (the double) has it. */
async function atStripe(id: string) {
  const res = await sandbox.fetch(
    new Request(`${WORKER}/sandbox/stripe/v1/identity/verification_sessions/${id}`, {
      headers: { Authorization: `Bearer ${STRIPE_SANDBOX_KEY}` },
    }),
    {},
  );
  assert.equal(res.status, 200);
  return (await res.json()) as { status: string; redaction: { status: string } | null; metadata: Record<string, string> };
}

/** Stripe failing `operation` (its cancel or redact) with `status` (0: no answer at all) until `restore`. */
function stripeFails(operation: 'cancel' | 'redact', status: number) {
  const real = sandbox.fetch.bind(sandbox);
  return mock.method(sandbox, 'fetch', (request: Request, ...rest: unknown[]) => {
    if (new URL(request.url).pathname.endsWith(`/${operation}`)) {
      if (status === 0) return Promise.reject(new TypeError('fetch failed'));
      return Promise.resolve(Response.json({ error: { type: 'api_error', message: 'down' } }, { status }));
    }
    return (real as (...a: unknown[]) => Promise<Response>)(request, ...rest);
  });
}

/** A Stripe verification made on this device (open), its session id. */
async function openOne(env: Env, store: MemoryVerifications) {
  const link = await post(env, '/api/onboarding-link', { ...details, returnUrl: `${PAGE}/done` });
  assert.equal(link.status, 200, JSON.stringify(link.json));
  const v = await store.execute(link.json.verificationId, { type: 'read' });
  assert.equal(v?.vendor, 'stripe');
  return { id: String(link.json.verificationId), session: v.entityId!, url: String(link.json.url), token: String(link.json.session) };
}

afterEach(() => mock.restoreAll());

describe('cancel and redact at Stripe', () => {
  it('cancel: the session is canceled at Stripe, then ours', async () => {
    const { env, store } = stack();
    const one = await openOne(env, store);
    const res = await post(env, `/v1/verifications/${one.id}/cancel`, {}, asServer);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(res.json.status, 'canceled');
    assert.equal((await atStripe(one.session)).status, 'canceled');
  });

  it('cancel with Stripe down: 502 (504 with no answer), nothing changed here; the retry cancels both', async () => {
    const { env, store } = stack();
    const one = await openOne(env, store);
    stripeFails('cancel', 500);
    const failed = await post(env, `/v1/verifications/${one.id}/cancel`, {}, asServer);
    assert.equal(failed.status, 502, JSON.stringify(failed.json));
    assert.equal(failed.json.errorCode, 'VENDOR_ERROR');
    assert.equal((await store.execute(one.id, { type: 'read' }))?.state.name, 'open');
    mock.restoreAll();
    stripeFails('cancel', 0);
    const unreachable = await post(env, `/v1/verifications/${one.id}/cancel`, {}, asServer);
    assert.equal(unreachable.status, 502, JSON.stringify(unreachable.json));
    assert.equal((await store.execute(one.id, { type: 'read' }))?.state.name, 'open');
    mock.restoreAll();
    const retried = await post(env, `/v1/verifications/${one.id}/cancel`, {}, asServer);
    assert.equal(retried.status, 200, JSON.stringify(retried.json));
    assert.equal((await atStripe(one.session)).status, 'canceled');
  });

  it('cancel of a session Stripe already verified: ours is canceled, Stripe keeps its verified session', async () => {
    const { env, store } = stack();
    const one = await openOne(env, store);
    await sandbox.fetch(
      new Request(one.url, {
        method: 'POST',
        body: 'choice=verify',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
      {},
    );
    const res = await post(env, `/v1/verifications/${one.id}/cancel`, {}, asServer);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal((await atStripe(one.session)).status, 'verified');
  });

  it('redact: every session of the verification is redacted at Stripe, and ours', async () => {
    const { env, store } = stack();
    const one = await openOne(env, store);
    // A first attempt that failed and a second one: two sessions at Stripe.
    await sandbox.fetch(
      new Request(one.url, {
        method: 'POST',
        body: 'choice=fail&code=document_expired',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
      {},
    );
    const waiting = await post(env, '/api/result', { session: one.token, returned: 'error' });
    assert.equal(waiting.json.status, 'requires_input', JSON.stringify(waiting.json));
    const next = await post(env, '/api/onboarding-link', { ...details, session: one.token, returnUrl: `${PAGE}/done` });
    assert.equal(next.status, 200, JSON.stringify(next.json));
    const second = (await store.execute(one.id, { type: 'read' }))!.entityId!;
    assert.notEqual(second, one.session);

    const res = await post(env, `/v1/verifications/${one.id}/redact`, {}, asServer);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    for (const session of [one.session, second]) {
      const s = await atStripe(session);
      assert.equal(s.redaction?.status, 'redacted', `${session} redacted at Stripe`);
      assert.deepEqual(s.metadata, {});
    }
    // The open second session was canceled by its redaction, as Stripe does.
    assert.equal((await atStripe(second)).status, 'canceled');
    const v = await store.execute(one.id, { type: 'read' });
    assert.equal(v?.entityId, undefined);
    assert.equal(v?.vendorRedactPending, undefined);
    assert.ok(!JSON.stringify(v).includes(one.session), 'no session id is kept');
  });

  it('redact with Stripe down: ours is redacted anyway, 504/502 says so, the session id alone is kept; redact again erases it at Stripe', async () => {
    const { env, store } = stack();
    const one = await openOne(env, store);
    stripeFails('redact', 503);
    const failed = await post(env, `/v1/verifications/${one.id}/redact`, {}, asServer);
    assert.equal(failed.status, 502, JSON.stringify(failed.json));
    assert.equal(failed.json.errorCode, 'VENDOR_ERROR');
    assert.match(failed.json.errorMsg, /Redacted here/);
    const v = await store.execute(one.id, { type: 'read' });
    assert.notEqual(v?.redactedAt, undefined, 'ours is redacted');
    assert.equal(v?.entityId, undefined);
    assert.equal(v?.customerRef, undefined);
    assert.deepEqual(v?.vendorRedactPending, [one.session]);
    assert.equal((await atStripe(one.session)).redaction, null);

    mock.restoreAll();
    const again = await post(env, `/v1/verifications/${one.id}/redact`, {}, asServer);
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.equal((await atStripe(one.session)).redaction?.status, 'redacted');
    assert.equal((await store.execute(one.id, { type: 'read' }))?.vendorRedactPending, undefined);
  });

  it('a redaction Stripe refuses (a 4xx) is not asked again: ours is done, 200', async () => {
    const { env, store } = stack();
    const one = await openOne(env, store);
    stripeFails('redact', 400);
    const errors = mock.method(console, 'error', () => undefined);
    const res = await post(env, `/v1/verifications/${one.id}/redact`, {}, asServer);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal((await store.execute(one.id, { type: 'read' }))?.vendorRedactPending, undefined);
    assert.ok(errors.mock.calls.some((c) => String(c.arguments[0]).includes('vendor_redact_refused')));
  });
});
