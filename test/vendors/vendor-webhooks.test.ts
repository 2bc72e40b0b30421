/**
 * `POST /vendor-webhooks/stripe/{partnerId}` (worker/vendors/webhooks.ts): a
 * bad signature is 400 and changes nothing; a valid event about one of the
 * partner's verifications only makes the worker ask sooner (observe); an
 * unknown session or type is 200 and ignored.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signedStripeEvent, STRIPE_SANDBOX_WEBHOOK_SECRET } from '../../sandbox/stripe/app';
import type { Verifications } from '../../worker/ports';
import type { Verification } from '../../worker/verifications/verification';
import { nodeApp } from '../support/node-app';
import { nodeEnv } from '../support/node-env';
import { useNodeTwins } from '../support/node-twins';

const ORIGIN = 'http://127.0.0.1:8787';

/** A verifications port that knows one verification and records what was asked of it. */
function watched(partnerId: string) {
  const asked: string[] = [];
  const v = { id: 'vrf_01JWEBHOOKTEST0000000000000', partnerId } as Verification;
  const port = {
    execute: async (id: string, command: { type: string }) => {
      if (command.type === 'observe') asked.push(id);
      else if (command.type !== 'read') throw new Error(`unexpected ${command.type}`);
      return id === v.id ? v : undefined;
    },
  } as unknown as Verifications;
  return { asked, v, port };
}

async function deliver(env: ReturnType<typeof nodeEnv>, partnerId: string, body: string, signature: string | undefined) {
  return nodeApp.request(
    `${ORIGIN}/vendor-webhooks/stripe/${partnerId}`,
    { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...(signature ? { 'Stripe-Signature': signature } : {}) } },
    env,
  );
}

const session = (id: string, reference: string) => ({ id, object: 'identity.verification_session', client_reference_id: reference });

describe('POST /vendor-webhooks/stripe/{partnerId}', () => {
  it("a valid event about the partner's verification makes the worker ask; a forged one changes nothing", async () => {
    const env = nodeEnv({ KYC_VENDOR: 'idv,stripe' });
    const w = watched('demo-a');
    useNodeTwins(env, { verifications: w.port });
    const event = await signedStripeEvent(
      'identity.verification_session.verified',
      session('vs_1', w.v.id),
      STRIPE_SANDBOX_WEBHOOK_SECRET,
      Date.now(),
    );

    const forged = await deliver(env, 'demo-a', event.body, event.signature.replace(/v1=./, 'v1=0'));
    assert.equal(forged.status, 400);
    assert.equal(((await forged.json()) as { errorCode: string }).errorCode, 'SIGNATURE_INVALID');
    assert.equal((await deliver(env, 'demo-a', event.body, undefined)).status, 400);
    const otherSecret = await signedStripeEvent(
      'identity.verification_session.verified',
      session('vs_1', w.v.id),
      'whsec_not_ours',
      Date.now(),
    );
    assert.equal((await deliver(env, 'demo-a', otherSecret.body, otherSecret.signature)).status, 400);
    const old = await signedStripeEvent(
      'identity.verification_session.verified',
      session('vs_1', w.v.id),
      STRIPE_SANDBOX_WEBHOOK_SECRET,
      Date.now() - 600_000,
    );
    assert.equal((await deliver(env, 'demo-a', old.body, old.signature)).status, 400);
    assert.deepEqual(w.asked, []);

    const ok = await deliver(env, 'demo-a', event.body, event.signature);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { received: true });
    assert.deepEqual(w.asked, [w.v.id]);
  });

  it("an unknown session, another partner's verification or another type is 200 and ignored", async () => {
    const env = nodeEnv({ KYC_VENDOR: 'stripe' });
    const w = watched('demo-b');
    useNodeTwins(env, { verifications: w.port });
    for (const [type, object] of [
      ['identity.verification_session.verified', session('vs_2', 'vrf_01JNOTONEOFOURS00000000000')],
      ['identity.verification_session.verified', session('vs_3', w.v.id)], // demo-b's, delivered to demo-a
      ['account.updated', { id: 'acct_1', object: 'account' }],
    ] as const) {
      const e = await signedStripeEvent(type, object, STRIPE_SANDBOX_WEBHOOK_SECRET, Date.now());
      const r = await deliver(env, 'demo-a', e.body, e.signature);
      assert.equal(r.status, 200);
      assert.deepEqual(await r.json(), { received: true, ignored: true });
    }
    assert.deepEqual(w.asked, []);
  });

  it('is 404 for a partner without Stripe, or an unknown partner', async () => {
    const env = nodeEnv();
    const e = await signedStripeEvent(
      'identity.verification_session.verified',
      session('vs_1', 'vrf_x'),
      STRIPE_SANDBOX_WEBHOOK_SECRET,
      Date.now(),
    );
    assert.equal((await deliver(env, 'demo-a', e.body, e.signature)).status, 404);
    assert.equal((await deliver(nodeEnv({ KYC_VENDOR: 'stripe' }), 'no-such-partner', e.body, e.signature)).status, 404);
  });
});
