/**
 * The polling budget ("Polling budget"), as a unit over a controlled clock:
 * the worker's own VerificationLogic with its alarm, browsers on
 * `/api/result`, returns and a failing vendor (test/support/polling-sim.ts).
 * With no one waiting the alarm doubles its wait up to
 * RESULT_POLL_MAX_SECONDS; a browser waiting is answered at most once per
 * RESULT_POLL_SECONDS; a return asks at once; a failing vendor backs off.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readConfig } from '../../worker/config';
import { defaultSchedule, fixedSchedule, simulate } from '../support/polling-sim';
import { nodeEnv } from '../support/node-env';

const pollSchedule = (env: Parameters<typeof readConfig>[0]) => readConfig(env).outcomes.poll;

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('polling budget (controlled clock)', () => {
  it('reads RESULT_POLL_MAX_SECONDS: default 900, never below RESULT_POLL_SECONDS', () => {
    assert.deepEqual(pollSchedule(nodeEnv({})), { pollMs: 30_000, maxMs: 900_000 });
    assert.deepEqual(pollSchedule(nodeEnv({ RESULT_POLL_SECONDS: '10', RESULT_POLL_MAX_SECONDS: '120' })), {
      pollMs: 10_000,
      maxMs: 120_000,
    });
    assert.deepEqual(pollSchedule(nodeEnv({ RESULT_POLL_SECONDS: '60', RESULT_POLL_MAX_SECONDS: '20' })), {
      pollMs: 60_000,
      maxMs: 60_000,
    });
    assert.deepEqual(pollSchedule(nodeEnv({ RESULT_POLL_MAX_SECONDS: 'soon' })), { pollMs: 30_000, maxMs: 900_000 });
  });

  it('an abandoned verification (link never opened, one-hour link, default grace) costs at most 12 vendor result calls', async () => {
    const r = await simulate({}, { schedule: defaultSchedule() });
    assert.equal(r.outcome, 'expired');
    assert.equal(r.endedAt, 3600 + 900);
    assert.ok(r.vendorCalls >= 1 && r.vendorCalls <= 12, `${r.vendorCalls} calls`);
    // The waits double from RESULT_POLL_SECONDS up to RESULT_POLL_MAX_SECONDS, never past it.
    const g = gaps(r.callTimes);
    assert.equal(r.callTimes[0], 30);
    assert.deepEqual(g.slice(0, 4), [60, 120, 240, 480]);
    assert.ok(g.every((x) => x <= 900));
    assert.equal(g.at(-2), 900);
    assert.equal(r.callTimes.at(-1), 3600 + 900, 'asked once more at the deadline');
    assert.equal(r.reason, 'not_finished');
    // The fixed schedule it replaces: every 30 s for 75 minutes.
    const fixed = await simulate({}, { schedule: fixedSchedule() });
    assert.ok(fixed.vendorCalls >= 140, `${fixed.vendorCalls} calls`);
  });

  it('a person who returns is asked about at once, then at most once per RESULT_POLL_SECONDS while the browser waits', async () => {
    // Away in the hosted flow for 5 minutes; the vendor has the outcome 20 s after the return.
    const r = await simulate({ returnAt: 300, finalAt: 320 }, { schedule: defaultSchedule() });
    assert.equal(r.outcome, 'final');
    assert.ok(r.callTimes.includes(300), `asked at the return: ${r.callTimes}`);
    const after = r.callTimes.filter((t) => t >= 300);
    assert.ok(
      gaps(after).every((x) => x >= 30),
      `once per interval: ${after}`,
    );
    assert.equal(r.endedAt, 330); // the widget's next ask 30 s after the return's
    // While away, the alarm backed off: 30, 90, 210 (not every 30 s).
    assert.deepEqual(
      r.callTimes.filter((t) => t < 300),
      [30, 90, 210],
    );
  });

  it('a phone that finishes without anyone returning is found by the backed-off alarm within RESULT_POLL_MAX_SECONDS', async () => {
    // The first device waits beside the QR code for two minutes, then is closed; the phone finishes at 10 minutes.
    const r = await simulate({ watch: { from: 0, to: 120, every: 10 }, finalAt: 600 }, { schedule: defaultSchedule() });
    assert.equal(r.outcome, 'final');
    assert.ok(r.endedAt >= 600 && r.endedAt - 600 <= 900, `found at ${r.endedAt}`);
    // While the browser waited: once per 30 s (0, 30, 60, 90, 120), then the alarm doubles from 30 s.
    assert.deepEqual(
      r.callTimes.filter((t) => t <= 120),
      [0, 30, 60, 90, 120],
    );
    assert.deepEqual(gaps(r.callTimes.filter((t) => t >= 120)).slice(0, 3), [30, 60, 120]);
    assert.ok(r.vendorCalls <= 12, `${r.vendorCalls} calls`);
  });

  it('a failing vendor is asked less and less often, by the alarm and for a waiting browser alike', async () => {
    // Down for the whole life, no one waiting: the same budget as an abandoned verification.
    const down = await simulate({ vendorDown: () => true }, { schedule: defaultSchedule() });
    assert.equal(down.outcome, 'expired');
    assert.equal(down.reason, 'vendor_unavailable', 'no answer at the deadline: it waited for the vendor, then gave up');
    assert.equal(down.endedAt, 3600 + 900 + 86_400, 'VERIFICATION_MAX_SECONDS after the deadline');
    const beforeDeadline = down.callTimes.filter((t) => t < 3600 + 900);
    assert.ok(beforeDeadline.length <= 12, `${beforeDeadline.length} calls`);
    // After the deadline: on the failing vendor's back-off (at most one call per RESULT_POLL_MAX_SECONDS).
    assert.ok(down.vendorCalls - beforeDeadline.length <= 86_400 / 900 + 1, `${down.vendorCalls} calls`);
    // Down for the first 10 minutes while a browser asks every 10 s; the outcome is there at 15 minutes.
    const r = await simulate(
      { vendorDown: (t) => t < 600, watch: { from: 0, to: 1800, every: 10 }, finalAt: 900 },
      { schedule: defaultSchedule() },
    );
    const failing = r.callTimes.filter((t) => t < 600);
    assert.deepEqual(gaps(failing), [60, 120, 240]); // 0, 60, 180, 420: doubling
    assert.equal(r.outcome, 'final');
    // Once the vendor answers again, the waiting browser is served once per 30 s: final within 30 s of the outcome.
    assert.ok(r.endedAt >= 900 && r.endedAt <= 930, `found at ${r.endedAt}`);
    const fixed = await simulate(
      { vendorDown: (t) => t < 600, watch: { from: 0, to: 1800, every: 10 }, finalAt: 900 },
      { schedule: fixedSchedule() },
    );
    assert.ok(fixed.callTimes.filter((t) => t < 600).length >= 20);
  });
});
