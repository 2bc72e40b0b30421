/**
 * The stripe adapter's own rules beyond the conformance suite: the signature
 * scheme against an independent HMAC, the mapping table, and the double's
 * hosted page (a url works once; a fresh one comes with each retrieve).
 */
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { signStripeEvent, verifyStripeSignature } from '../../rules/stripe-signature';
import { answerOf } from '../../worker/vendors/stripe/mapping';
import type { StripeSession } from '../../worker/vendors/stripe/client';
import { LAST_ERROR_CODES } from '../../sandbox/stripe/app';
import { stripeFixtures } from './fixtures';
import type { AdapterFixture } from './conformance';

const session = (status: StripeSession['status'], code?: string): StripeSession => ({
  id: 'vs_1',
  object: 'identity.verification_session',
  status,
  last_error: code ? { code } : null,
  client_reference_id: 'vrf_1',
  metadata: {},
  livemode: false,
  url: null,
  created: 0,
  type: 'document',
  redaction: null,
});

describe('Stripe-Signature', () => {
  const secret = 'whsec_test_secret';
  const body = JSON.stringify({ id: 'evt_1', type: 'identity.verification_session.verified' });
  const now = Date.now();

  it('signs as Stripe documents it: v1 = hex HMAC-SHA256 of "t.body"', async () => {
    const t = Math.floor(now / 1000);
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    assert.equal(await signStripeEvent(secret, body, now), `t=${t},v1=${expected}`);
  });

  it('accepts any of several v1 signatures, refuses outside 300 s either way', async () => {
    const t = Math.floor(now / 1000);
    const good = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    assert.equal(await verifyStripeSignature(secret, `t=${t},v1=${'0'.repeat(64)},v1=${good}`, body, now), true);
    assert.equal(await verifyStripeSignature(secret, `t=${t},v0=${good}`, body, now), false);
    assert.equal(await verifyStripeSignature(secret, `t=${t},v1=${good}`, body, now + 301_000), false);
    assert.equal(await verifyStripeSignature(secret, `t=${t},v1=${good}`, body, now - 301_000), false);
    assert.equal(await verifyStripeSignature(secret, `t=${t},v1=${good}`, body, now + 299_000), true);
    assert.equal(await verifyStripeSignature(secret, `t=${t},v1=${good}`, body + ' ', now), false);
    assert.equal(await verifyStripeSignature(secret, `v1=${good}`, body, now), false);
  });
});

describe('stripe mapping', () => {
  it('maps statuses and codes as docs/vendors.md says', () => {
    assert.deepEqual(answerOf(session('verified')), {
      state: 'final',
      check: 'vs_1',
      result: { outcome: 'verified', vendor: 'stripe', vendorStatus: 'verified' },
    });
    assert.equal(answerOf(session('processing')).state, 'pending');
    assert.equal(answerOf(session('requires_input')).state, 'pending');
    assert.equal(answerOf(session('requires_input', 'abandoned')).state, 'pending');
    assert.deepEqual(answerOf(session('requires_input', 'document_expired')), {
      state: 'retryable',
      check: 'vs_1',
      reason: 'document_expired',
      vendorStatus: 'document_expired',
    });
    const declined = answerOf(session('requires_input', 'under_supported_age'));
    assert.ok(declined.state === 'final' && declined.result.outcome === 'failed' && declined.result.reason === 'under_age');
  });

  it("knows every code of the double's page (none falls to a guess)", () => {
    for (const code of LAST_ERROR_CODES) {
      const a = answerOf(session('requires_input', code));
      const reason = a.state === 'retryable' ? a.reason : a.state === 'final' ? a.result.reason : 'pending';
      assert.notEqual(reason, undefined, code);
      if (code !== 'device_not_supported' && !code.endsWith('_unverified_other')) assert.notEqual(reason, 'other', code);
    }
  });
});

describe('the Stripe double', () => {
  let f: AdapterFixture | undefined;
  afterEach(async () => {
    await f?.dispose?.();
  });

  it('a hosted url works once; openUrl fetches a fresh one while the session requires input', async () => {
    f = await stripeFixtures.create();
    const link = await f.adapter.createLink(f.linkRequest());
    const page = await fetchDouble(link.url!);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Verify/);
    const failed = await fetchDouble(link.url!, 'choice=fail&code=document_expired');
    assert.equal(failed.status, 303);
    assert.equal(failed.headers.get('Location'), 'https://partner.test/back');
    assert.equal((await fetchDouble(link.url!)).status, 404);
    const fresh = await f.adapter.openUrl!(link.ref);
    assert.ok(fresh && fresh !== link.url);
    assert.equal((await fetchDouble(fresh)).status, 200);
    assert.equal((await f.adapter.latestResult(link.ref)).state, 'retryable');
    await fetchDouble(fresh, 'choice=verify');
    assert.equal(await f.adapter.openUrl!(link.ref), undefined);
  });

  it('cancels while the session requires input, and not after', async () => {
    f = await stripeFixtures.create();
    const link = await f.adapter.createLink(f.linkRequest());
    await f.adapter.cancel!(link.ref);
    const after = await f.adapter.latestResult(link.ref);
    assert.ok(after.state === 'final' && after.result.vendorStatus === 'canceled');
    await assert.rejects(() => f!.adapter.cancel!(link.ref), /vendor status 400/);
    await f.adapter.redact!(link.ref);
  });
});

async function fetchDouble(url: string, form?: string): Promise<Response> {
  const { sandbox } = await import('../../sandbox/app');
  return sandbox.fetch(
    new Request(url, form ? { method: 'POST', body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } } : {}),
    {},
  );
}
