/**
 * The restart storm (issue 40): 3,904 open verifications whose alarms were
 * overdue made 3,494 vendor result calls in about 50 s after a restart. Here
 * 500 verifications, run through the worker's own VerificationLogic (what the
 * Durable Object runs) with their alarms as the object keeps them (each told
 * when it was set for), a shared vendor that counts when it is asked, the
 * partner's pause kept in the budgets' twin (as the LIMITS object keeps it),
 * a controlled clock and a seeded random: nothing waits in real time.
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { type Verification } from '../../worker/verifications/verification';
import { CHECKING } from '../../worker/vendors/idv/mapping';
import { VerificationLogic } from '../../worker/verifications/verification-logic';
import { allowancesPace } from '../../worker/verifications/vendor-pace';
import { VendorError } from '../../worker/vendors/errors';
import { MemoryAllowances } from '../support/node-twins';

const SECOND = 1000;
const MIN = 60 * SECOND;
const SCHEDULE = { pollMs: 30 * SECOND, maxMs: 15 * MIN };
const T0 = Date.UTC(2030, 0, 7, 9, 0, 0); // a fixed instant: nothing here depends on today's date
const N = 500;

/** A seeded random (mulberry32), so each run spreads the same way. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function openRecord(i: number): Verification {
  return {
    id: `vrf_01JDSTORM${String(i).padStart(16, '0')}`,
    partnerId: 'alpha',
    partnerOrigin: 'https://alpha.example',
    customerRef: `acct-${i}`,
    customerRefSource: 'server',
    entityId: `entity-${i}`,
    workerOrigin: 'https://kyc.example',
    livemode: false,
    createdAt: T0,
    linkCreatedAt: T0,
    linkExpiresAt: T0 + 60 * MIN,
    deadline: T0 + 75 * MIN,
    state: { name: 'open' },
    polls: 1,
    lastPolledAt: T0,
    webhook: { state: 'none', attempts: 0 },
  };
}

/** `N` open verifications of one partner, their alarms set for their next poll (T0 + 30 s), a vendor answering with `vendor`. */
function fleet(vendor: (at: number) => void) {
  const clock = { now: T0 };
  const pace = allowancesPace(new MemoryAllowances(() => clock.now));
  const random = seeded(40);
  const alarms = new Map<number, number>();
  const calls: number[] = [];
  const logics = Array.from({ length: N }, (_, i) => {
    let v: Verification | undefined = openRecord(i);
    alarms.set(i, T0 + SCHEDULE.pollMs);
    return new VerificationLogic({
      load: async () => (v ? structuredClone(v) : undefined),
      save: async (next) => void (v = structuredClone(next)),
      remove: async () => void (v = undefined),
      setAlarm: async (at) => void alarms.set(i, at),
      now: () => clock.now,
      schedule: SCHEDULE,
      askVendor: async (asked) => {
        calls.push(clock.now);
        vendor(clock.now);
        return { checkStatus: CHECKING, entityId: asked.entityId };
      },
      pace,
      random,
    });
  });
  /** Runs every alarm due up to `until`, in time order, each told when it was set for (as the Durable Object does). */
  const runUntil = async (until: number) => {
    for (;;) {
      let next: [number, number] | undefined;
      for (const [i, at] of alarms) if (!next || at < next[1]) next = [i, at];
      if (!next || next[1] > until) break;
      const [i, at] = next;
      clock.now = Math.max(clock.now, at);
      alarms.delete(i);
      await logics[i]!.alarm(at);
    }
    clock.now = until;
  };
  return { clock, calls, runUntil };
}

/** The most calls within any window of `ms`. */
function busiest(times: number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let lo = 0, hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= ms) lo++;
    most = Math.max(most, hi - lo + 1);
  }
  return most;
}

describe('a restart with 500 overdue verifications', () => {
  it('spreads their polls over at least the poll interval instead of asking the vendor at once', async () => {
    const { clock, calls, runUntil } = fleet(() => undefined);
    // The worker was down for ten minutes: every alarm (set for T0 + 30 s) is overdue when it comes back.
    const restart = T0 + 10 * MIN;
    clock.now = restart;
    await runUntil(restart + SCHEDULE.maxMs + SCHEDULE.pollMs);
    const firstWave = calls.slice(0, N);
    assert.equal(calls.length >= N, true, `every verification was asked again (${calls.length} calls)`);
    assert.equal(
      firstWave.every((t) => t > restart),
      true,
      'none at the restart itself',
    );
    const span = Math.max(...firstWave) - Math.min(...firstWave);
    assert.ok(span >= SCHEDULE.pollMs, `spread over ${span} ms, at least the poll interval`);
    assert.ok(busiest(firstWave, SECOND) <= 10, `at most 10 calls in any second (${busiest(firstWave, SECOND)})`);
  });

  it('a vendor 429 pauses every verification of the partner until its Retry-After, then each asks again', async () => {
    let limitedAt: number | undefined;
    const { clock, calls, runUntil } = fleet((at) => {
      // The vendor limits the third call after the restart, asking for two minutes.
      if (calls.length === 3) {
        limitedAt = at;
        throw new VendorError({ kind: 'status', status: 429, retryAfterSeconds: 120 });
      }
    });
    const restart = T0 + 10 * MIN;
    clock.now = restart;
    const logged = mock.method(console, 'error', () => undefined); // the one poll_failed line
    try {
      await runUntil(restart + 2 * SCHEDULE.maxMs);
    } finally {
      logged.mock.restore();
    }
    assert.ok(limitedAt !== undefined, 'the vendor answered 429');
    const resumeAt = limitedAt + 120 * SECOND;
    const early = calls.filter((t) => t > limitedAt! && t < resumeAt);
    assert.deepEqual(early, [], 'nobody asked the vendor before its Retry-After');
    const after = calls.filter((t) => t >= resumeAt);
    assert.ok(after.length >= N - 2, `every verification not yet asked asks after it (${after.length})`);
    assert.ok(busiest(after, SECOND) <= 40, `and not all at once (${busiest(after, SECOND)} in the busiest second)`);
  });
});
