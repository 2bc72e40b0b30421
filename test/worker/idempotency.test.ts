/**
 * The idempotency record rules (worker/lib/idempotency.ts) with a controlled
 * clock: the windows, the in-flight claim, the release paths, and the shard
 * mapping the Durable Objects rely on. The workerd behaviour (one vendor call
 * for repeats and concurrent repeats) is in test/hardening/guards.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  expired,
  IDEMPOTENCY_SHARDS,
  IDEMPOTENCY_TTL_MS,
  IdempotencyRecords,
  IN_FLIGHT_STALE_MS,
  shardOf,
} from '../../worker/lib/idempotency';

function records() {
  const map = new Map<string, any>();
  const r = new IdempotencyRecords(
    async (k) => map.get(k),
    async (k, v) => void map.set(k, v),
    async (k) => void map.delete(k),
  );
  return { r, map };
}

const answer = { status: 200, body: '{"url":"u"}' };

describe('idempotency records', () => {
  it('replays a finished answer for the same body within the window, and forgets it after', async () => {
    const { r } = records();
    const t0 = 1_000_000;
    assert.deepEqual(await r.claim('k', 'f1', t0), { kind: 'new' });
    await r.finish('k', 'f1', answer, t0 + 10);
    assert.deepEqual(await r.claim('k', 'f1', t0 + IDEMPOTENCY_TTL_MS - 1), { kind: 'replay', answer });
    assert.deepEqual(await r.claim('k', 'f2', t0 + 20), { kind: 'mismatch' });
    assert.deepEqual(await r.claim('k', 'f1', t0 + 10 + IDEMPOTENCY_TTL_MS), { kind: 'new' });
  });

  it('answers busy while a claim runs, and presumes a silent claim dead after a minute', async () => {
    const { r } = records();
    const t0 = 5_000_000;
    await r.claim('k', 'f', t0);
    assert.deepEqual(await r.claim('k', 'f', t0 + IN_FLIGHT_STALE_MS - 1), { kind: 'busy' });
    assert.deepEqual(await r.claim('k', 'other', t0 + 1), { kind: 'mismatch' });
    assert.deepEqual(await r.claim('k', 'f', t0 + IN_FLIGHT_STALE_MS), { kind: 'new' });
  });

  it('frees a key after a definite failure; a verified release vouches only for the same body', async () => {
    const { r, map } = records();
    await r.claim('k', 'f', 1);
    await r.release('k');
    assert.equal(map.has('k'), false);
    assert.deepEqual(await r.claim('k', 'f', 2), { kind: 'new' });
    await r.release('k', 'f', true, 3);
    assert.deepEqual(await r.claim('k', 'f', 4), { kind: 'new', verified: true });
    await r.release('k', 'f', true, 5);
    assert.deepEqual(await r.claim('k', 'g', 6), { kind: 'new' });
  });

  it('marks records expired exactly at the end of the window', () => {
    assert.equal(expired({ at: 0 }, IDEMPOTENCY_TTL_MS - 1), false);
    assert.equal(expired({ at: 0 }, IDEMPOTENCY_TTL_MS), true);
  });

  it('maps a key always to the same shard, and spreads keys over all of them', () => {
    const seen = new Map<number, number>();
    for (let i = 0; i < 3200; i++) {
      const key = `https://partner.example submission-${i}`;
      const s = shardOf(key);
      assert.equal(shardOf(key), s);
      assert.ok(Number.isInteger(s) && s >= 0 && s < IDEMPOTENCY_SHARDS);
      seen.set(s, (seen.get(s) ?? 0) + 1);
    }
    assert.equal(seen.size, IDEMPOTENCY_SHARDS);
    for (const n of seen.values()) assert.ok(n > 50 && n < 150, `uneven shard: ${n} of 3200`);
  });
});
