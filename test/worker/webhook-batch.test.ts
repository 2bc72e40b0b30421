/**
 * A webhook batch is delivered beside itself (issue 40, "One slow partner
 * delays everyone's webhooks"): with one partner's receiver hanging, the
 * other partners' messages of the same batch are handled and acknowledged at
 * once; one partner never takes more than PER_PARTNER_CONCURRENCY of the
 * Worker's connections; a verification's events stay in order. No clock and
 * no sleeps: the hanging receiver is released by the test.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  consumeWebhookBatch,
  PER_PARTNER_CONCURRENCY,
  type MessageHandler,
  type WebhookMessage,
} from '../../worker/verifications/webhook-delivery';
import type { Env } from '../../worker/lib/env';
import type { Ports } from '../../worker/ports';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const msg = (partnerId: string, verificationId: string, sequence: number): WebhookMessage => ({
  verificationId,
  partnerId,
  workerOrigin: 'https://kyc.example',
  type: 'verification.completed',
  id: `msg_${verificationId}_${sequence}`,
  sequence,
  attempt: 1,
});

/** A batch whose messages record their ack (and retry) in `acked`. */
function batchOf(bodies: WebhookMessage[], acked: string[]): MessageBatch<WebhookMessage> {
  return {
    queue: 'kyc-webhooks',
    messages: bodies.map((body) => ({
      id: body.id,
      timestamp: new Date(0),
      attempts: 1,
      body,
      ack: () => void acked.push(body.id),
      retry: () => void acked.push(`retry ${body.id}`),
    })),
    ackAll: () => undefined,
    retryAll: () => undefined,
  } as unknown as MessageBatch<WebhookMessage>;
}

/** Runs pending callbacks and promise jobs until nothing more moves (no timers). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

describe('a webhook batch', () => {
  it('with one partner hanging, every other partner’s message is delivered and acknowledged at once', async () => {
    const hung = deferred();
    const acked: string[] = [];
    const started: string[] = [];
    const handle: MessageHandler = async (_env, _ports, m) => {
      started.push(m.id);
      if (m.partnerId === 'slow') await hung.promise;
    };
    // The hanging partner's messages come first, as in the measured run.
    const bodies = [
      msg('slow', 'vrf_S1', 1),
      msg('slow', 'vrf_S2', 1),
      msg('slow', 'vrf_S3', 1),
      msg('slow', 'vrf_S4', 1),
      ...['a', 'b', 'c', 'd', 'e', 'f'].map((p) => msg(p, `vrf_${p}`, 1)),
    ];
    const done = consumeWebhookBatch(batchOf(bodies, acked), {} as Env, {} as Ports, handle);
    await settle();
    assert.deepEqual(acked.sort(), ['a', 'b', 'c', 'd', 'e', 'f'].map((p) => `msg_vrf_${p}_1`).sort(), 'the others, while one hangs');
    assert.equal(
      started.filter((id) => id.startsWith('msg_vrf_S')).length,
      PER_PARTNER_CONCURRENCY,
      'the hanging partner holds no more than its share of connections',
    );
    hung.resolve();
    await done;
    assert.equal(acked.length, bodies.length);
    assert.ok(acked.every((a) => !a.startsWith('retry')));
  });

  it('keeps a verification’s events in order, and a failing message is retried without holding the rest', async () => {
    const acked: string[] = [];
    const order: string[] = [];
    const handle: MessageHandler = async (_env, _ports, m) => {
      order.push(m.id);
      await Promise.resolve();
      if (m.verificationId === 'vrf_bad') throw new Error('store unavailable');
    };
    const bodies = [msg('p', 'vrf_1', 1), msg('p', 'vrf_bad', 1), msg('p', 'vrf_1', 2), msg('p', 'vrf_1', 3), msg('q', 'vrf_2', 1)];
    await consumeWebhookBatch(batchOf(bodies, acked), {} as Env, {} as Ports, handle);
    assert.deepEqual(
      order.filter((id) => id.startsWith('msg_vrf_1_')),
      ['msg_vrf_1_1', 'msg_vrf_1_2', 'msg_vrf_1_3'],
    );
    assert.ok(acked.includes('retry msg_vrf_bad_1'));
    assert.equal(acked.filter((a) => !a.startsWith('retry')).length, 4);
  });
});
