/**
 * The demo partners' webhook receiver inside the worker: it records
 * a delivery whose signature verifies, refuses one that does not, compares
 * signatures in constant time (every given signature in full, whatever
 * matched), and ignores a replayed delivery (the same webhook-id again)
 * instead of showing the event twice. What it accepted is the demo's own
 * (read back through its GET), never a field of the verification record. Node, the local app, the sandbox as the
 * vendor, verifications in memory. Everything runs in this process, so its
 * clock (moved a year ahead by `npm run test:clock-ahead`) is the receiver's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Env } from '../../worker/lib/env';
import { nodeApp as app } from '../support/node-app';
import { demoTarget, DEMO_RECEIVER_PATH } from '../../worker/demo/demo-receiver';
import { MemoryDemoDeliveries } from '../support/demo-deliveries';
import { newVerificationId, type Verification } from '../../worker/verifications/verification';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { webhookSignature } from '../../worker/verifications/webhook-signature';
import { nodeEnv } from '../support/node-env';

const ORIGIN = 'http://127.0.0.1:8787';

async function setup() {
  const env: Env = nodeEnv({ DEMO: 'on' });
  const store = new MemoryVerifications(env);
  useNodeTwins(env, { verifications: store, deliveries: new MemoryDemoDeliveries() });
  const now = Date.now();
  const v: Verification = {
    id: newVerificationId(),
    partnerId: 'demo-a',
    partnerOrigin: ORIGIN,
    entityId: 'e-1',
    workerOrigin: ORIGIN,
    livemode: false,
    createdAt: now,
    linkExpiresAt: now + 3_600_000,
    deadline: now + 4_500_000,
    state: { name: 'open' },
    polls: 0,
    webhook: { state: 'none', attempts: 0 },
  };
  store.records.set(v.id, v);
  return { env, store, v };
}

async function deliver(env: Env, vid: string, id: string, signatures?: (good: string) => string) {
  const body = JSON.stringify({
    type: 'verification.completed',
    timestamp: new Date(Date.now()).toISOString(),
    data: { verificationId: vid, status: 'final', result: { outcome: 'verified', vendor: 'idv', vendorStatus: 'CHECKED_SUCCESS_CLEAR' } },
  });
  const ts = Math.floor(Date.now() / 1000);
  const { key } = await demoTarget(env, ORIGIN);
  const good = await webhookSignature(key, id, ts, body);
  return app.request(
    `${ORIGIN}${DEMO_RECEIVER_PATH}`,
    {
      method: 'POST',
      headers: { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signatures ? signatures(good) : good },
      body,
    },
    env,
  );
}

/** What the demo shows for `vid`: the receiver's own record, read the way the demo page reads it. */
async function shown(env: Env, vid: string): Promise<{ webhookId: string }[]> {
  const res = await app.request(`${ORIGIN}${DEMO_RECEIVER_PATH}/${vid}`, {}, env);
  assert.equal(res.status, 200);
  return ((await res.json()) as { deliveries: { webhookId: string }[] }).deliveries;
}

describe('the demo webhook receiver', () => {
  it('records a verified delivery once: a replay of the same webhook-id is acknowledged and ignored', async () => {
    const { env, store, v } = await setup();
    assert.equal((await deliver(env, v.id, 'msg_1')).status, 204);
    assert.equal((await deliver(env, v.id, 'msg_1')).status, 204, 'a retry is acknowledged (the sender may stop)');
    assert.deepEqual(
      (await shown(env, v.id)).map((d) => d.webhookId),
      ['msg_1'],
      'shown once',
    );
    assert.equal((await deliver(env, v.id, 'msg_2')).status, 204);
    assert.deepEqual(
      (await shown(env, v.id)).map((d) => d.webhookId),
      ['msg_1', 'msg_2'],
    );
    assert.deepEqual(store.records.get(v.id), v, 'the verification record carries no demo data');
    // What the demo page shows of it: the outcome in our words and the vendor, never the vendor's status.
    const [first] = (await shown(env, v.id)) as unknown as Record<string, unknown>[];
    assert.equal(first?.outcome, 'verified');
    assert.equal(first?.vendor, 'idv');
    assert.equal(JSON.stringify(first).includes('CHECKED'), false);
  });

  it('refuses a signature that does not verify, and accepts the good one among several (each compared in full)', async () => {
    const { env, v } = await setup();
    const flip = (s: string) => s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1);
    assert.equal((await deliver(env, v.id, 'msg_bad', (good) => flip(good))).status, 401);
    assert.equal((await deliver(env, v.id, 'msg_short', (good) => good.slice(0, 10))).status, 401);
    assert.deepEqual(await shown(env, v.id), [], 'nothing recorded that did not verify');
    assert.equal((await deliver(env, v.id, 'msg_many', (good) => `${flip(good)} ${good}`)).status, 204);
    assert.deepEqual(
      (await shown(env, v.id)).map((d) => d.webhookId),
      ['msg_many'],
    );
  });
});
