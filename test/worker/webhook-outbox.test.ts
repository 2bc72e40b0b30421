/**
 * The outbox's rules (worker/verifications/webhook-outbox.ts) on a clock the
 * test controls: sequence numbers only grow and live in the body, a
 * redelivery reuses its entry, `Retry-After` never shortens the schedule, a
 * report is counted once, an unreported hand-off is handed off again, and
 * only a real attempt counts toward the schedule: a queue that refuses, or a
 * consumer that never reports, never makes an event dead.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WebhookEvent } from '../../worker/verifications/verification';
import {
  ACK_WINDOW_MS,
  added,
  handOff,
  nextDueAt,
  redacted,
  refused,
  reported,
  retryWaitSeconds,
  undelivered,
} from '../../worker/verifications/webhook-outbox';

const T0 = 1_000_000_000_000; // a fixed instant: the clock of these cases
const policy = { schedule: [5, 300, 1800], maxAttempts: 3 };
const event = (type: WebhookEvent['type'], extra: Record<string, unknown> = {}): WebhookEvent => ({
  verificationId: 'vrf_X',
  type,
  id: `msg_X_${type.slice('verification.'.length)}`,
  body: JSON.stringify({ type, timestamp: 't', data: { verificationId: 'vrf_X', customerRef: 'acct-1', entityId: 'e-1', ...extra } }),
  partnerId: 'p',
  workerOrigin: 'https://w.example',
});
const seq = (e: WebhookEvent) => (JSON.parse(e.body) as { data: { sequence: number } }).data.sequence;

describe('the webhook outbox', () => {
  it('numbers events 1, 2, 3 in their bodies; the same event again is a fresh delivery of its entry, body and sequence unchanged', () => {
    let o = added([], event('verification.canceled'), T0);
    o = added(o, event('verification.completed'), T0 + 1);
    assert.deepEqual(
      o.map((e) => [e.sequence, seq(e.event)]),
      [
        [1, 1],
        [2, 2],
      ],
    );
    const again = added(o, event('verification.completed', { extra: 'changed' }), T0 + 2);
    assert.equal(again.length, 2);
    assert.equal(again[1]!.event.body, o[1]!.event.body);
    assert.equal(again[1]!.attempts, 0);
    assert.equal(again[1]!.dueAt, T0 + 2);
  });

  it('never waits less than the schedule step, whatever Retry-After says; a longer Retry-After is honoured', () => {
    assert.equal(retryWaitSeconds(policy, 1, 0), 5);
    assert.equal(retryWaitSeconds(policy, 2, 0), 300);
    assert.equal(retryWaitSeconds(policy, 2, 3600), 3600);
    assert.equal(retryWaitSeconds(policy, 9), 1800, 'the last step repeats');
    let o = handOff(added([], event('verification.completed'), T0), T0, policy).entries;
    const r = reported(o, 1, 1, { kind: 'failed', status: 503, retryAfterSeconds: 0 }, T0 + 10, policy)!;
    assert.equal(r.result, 'retry');
    assert.equal(r.entry.dueAt, T0 + 10 + 5_000);
    o = r.entries;
    assert.equal(nextDueAt(o), T0 + 10 + 5_000);
    assert.deepEqual(undelivered(o)[0], {
      webhookId: 'msg_X_completed',
      type: 'verification.completed',
      sequence: 1,
      state: 'failed',
      attempts: 1,
      lastResponseStatus: 503,
      lastAttemptAt: T0 + 10,
      nextAttemptAt: T0 + 10 + 5_000,
    });
  });

  it('counts a report once, ends dead after the last attempt, and hands off again what nobody reported', () => {
    let o = handOff(added([], event('verification.expired'), T0), T0, policy).entries;
    assert.equal(o[0]!.dueAt, T0 + ACK_WINDOW_MS, 'handed off: due again only if unreported');
    assert.equal(handOff(o, T0 + 1000, policy).due.length, 0);
    assert.equal(handOff(o, T0 + ACK_WINDOW_MS, policy).due.length, 1, 'lost: handed off again');
    o = reported(o, 1, 1, { kind: 'failed', status: 500 }, T0, policy)!.entries;
    assert.equal(reported(o, 1, 1, { kind: 'delivered', status: 200 }, T0, policy), undefined, 'attempt 1 was already counted');
    o = reported(o, 1, 2, { kind: 'failed', status: 500 }, T0, policy)!.entries;
    const last = reported(o, 1, 3, { kind: 'failed', status: 500 }, T0, policy)!;
    assert.equal(last.result, 'dead');
    assert.equal(nextDueAt(last.entries), undefined);
  });

  it('a queue that refuses every send for ten minutes, then accepts: the event is delivered, and only the real attempt counts', () => {
    const defaults = { schedule: [60, 300, 1800, 7200, 21600, 43200, 86400, 86400, 86400], maxAttempts: 10 };
    let o = added([], event('verification.completed'), T0);
    let t = T0;
    let handOffs = 0;
    // The Durable Object's loop: the alarm at the next due time, every hand-off refused.
    while (t < T0 + 10 * 60_000) {
      const h = handOff(o, t, defaults);
      for (const e of h.due) {
        handOffs++;
        o = refused(h.entries, e.sequence, t);
      }
      if (!h.due.length) o = h.entries;
      t = nextDueAt(o)!;
    }
    assert.ok(handOffs >= 5, `refused ${handOffs} times`);
    assert.equal(o[0]!.state, 'queued', 'still owed after the outage');
    assert.equal(o[0]!.attempts, 0);
    assert.ok(nextDueAt(o)! - T0 <= 10 * 60_000 + ACK_WINDOW_MS, 'handed off again within minutes of the queue coming back');
    // The queue is back: the next hand-off reaches the consumer, whose first attempt delivers it.
    const h = handOff(o, nextDueAt(o)!, defaults);
    assert.equal(h.due.length, 1);
    const r = reported(h.entries, 1, h.due[0]!.attempts + 1, { kind: 'delivered', status: 200 }, nextDueAt(o)!, defaults)!;
    assert.equal(r.result, 'delivered');
    assert.equal(r.entry.attempts, 1, 'one real attempt; the refused hand-offs are not attempts');
    assert.equal(r.entry.refusals, undefined);
  });

  it('a consumer that never reports (a crash loop, a backlog) for a day: still owed, then its attempts are the whole schedule', () => {
    let silent = added([], event('verification.completed'), T0);
    let t = T0;
    for (let i = 0; i < (24 * 3600_000) / ACK_WINDOW_MS; i++, t += ACK_WINDOW_MS) silent = handOff(silent, t, policy).entries;
    assert.equal(silent[0]!.state, 'queued');
    assert.equal(silent[0]!.attempts, 0);
    assert.ok(silent[0]!.sends > policy.maxAttempts + 3, 'many hand-offs, none of them an attempt');
    // The consumer recovers: every attempt of the schedule is still to come.
    let o = reported(silent, 1, 1, { kind: 'failed', status: 500 }, t, policy)!;
    assert.equal(o.result, 'retry');
    o = reported(o.entries, 1, 2, { kind: 'failed', status: 500 }, t, policy)!;
    assert.equal(o.result, 'retry');
    assert.equal(reported(o.entries, 1, 3, { kind: 'failed', status: 500 }, t, policy)!.result, 'dead');
  });

  it('forgets the reference and the entity in every kept body on redaction', () => {
    const o = redacted(added([], event('verification.completed', { customerRefSource: 'server' }), T0));
    assert.doesNotMatch(o[0]!.event.body, /acct-1|e-1|customerRef/);
    assert.equal(seq(o[0]!.event), 1);
  });
});
