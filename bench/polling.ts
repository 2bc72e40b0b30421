/**
 * Item 9: what polling costs the vendor. 1,000 verifications on a controlled
 * clock, run through the worker's own VerificationLogic (the code its Durable
 * Objects run; test/support/polling-sim.ts), with a realistic mix:
 *   - most return within minutes (the person leaves for the hosted flow, comes
 *     back with a check id; the widget then asks as it does);
 *   - some finish on the phone and never return (the first device waits
 *     beside the QR code for a while, then is closed);
 *   - about a third abandon (the link is never opened; some leave a QR code on
 *     screen for a minute or two).
 * Reported: vendor result calls per verification (p50, p95, max), per link
 * request (the mean), the abandoned ones' maximum against the budget of 12,
 * and how long after the vendor had an outcome the worker knew it; the same
 * journeys under the fixed schedule polling replaced (every
 * RESULT_POLL_SECONDS while the verification is open) as the baseline.
 * Deterministic (a seeded generator): no timing, so it runs in the quick
 * bench too, and an abandoned verification over the budget fails the run.
 */
import { defaultSchedule, fixedSchedule, simulate, type Journey, type JourneyResult } from '../test/support/polling-sim';
import { median, percentile, round } from './lib/stats';

/** The polling budget: an abandoned verification, default settings. */
export const ABANDONED_BUDGET = 12;

export type Kind = 'returned' | 'phone' | 'abandoned';

export interface CallStats {
  p50: number;
  p95: number;
  max: number;
  /** Calls per link request: all calls / verifications. */
  perLink: number;
}

export interface Schedule extends CallStats {
  /** The most calls of an abandoned verification, and of one nobody ever waited on (the budget's case). */
  abandonedMax: number;
  abandonedAloneMax: number;
  /** Seconds from the vendor having the outcome to the worker knowing it. */
  outcomeLagP50: number;
  outcomeLagP95: number;
  outcomeLagMax: number;
}

export interface PollingResult {
  verifications: number;
  mix: Record<Kind, number>;
  backoff: Schedule;
  fixed: Schedule;
  budget: number;
  withinBudget: boolean;
  settings: string;
}

/** mulberry32: a small seeded generator (the same 1,000 journeys on every run). */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The journeys: 55 % return, 12 % finish on the phone without returning, 33 % abandon. */
export function journeys(n: number, seed = 24): { kind: Kind; journey: Journey }[] {
  const rnd = prng(seed);
  const between = (lo: number, hi: number) => Math.round(lo + rnd() * (hi - lo));
  const out: { kind: Kind; journey: Journey }[] = [];
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.55) {
      // Back from the hosted flow after 2 to 12 minutes; the vendor's outcome within a minute and a half of it.
      const returnAt = between(120, 720);
      out.push({ kind: 'returned', journey: { returnAt, finalAt: returnAt + between(0, 90) } });
    } else if (r < 0.67) {
      // A QR code watched for up to 5 minutes, the phone done after 3 to 20 minutes, nobody back.
      out.push({ kind: 'phone', journey: { watch: { from: 5, to: between(30, 300), every: 10 }, finalAt: between(180, 1200) } });
    } else {
      // Never opened; half of them with a QR code left on screen for up to 2 minutes.
      out.push({ kind: 'abandoned', journey: rnd() < 0.5 ? {} : { watch: { from: 5, to: between(10, 120), every: 10 } } });
    }
  }
  return out;
}

function stats(results: { kind: Kind; journey: Journey; r: JourneyResult }[]) {
  // Backing off may make the worker learn an outcome later, never miss it.
  const missed = results.filter((x) => x.journey.finalAt !== undefined && x.r.outcome !== 'final').length;
  if (missed) throw new Error(`${missed} verifications with an outcome at the vendor ended as expired`);
  const calls = results.map((x) => x.r.vendorCalls);
  const lags = results.filter((x) => x.r.outcome === 'final').map((x) => x.r.endedAt - x.journey.finalAt!);
  return {
    p50: median(calls),
    p95: percentile(calls, 95),
    max: Math.max(...calls),
    perLink: round(calls.reduce((a, b) => a + b, 0) / calls.length, 2),
    abandonedMax: Math.max(...results.filter((x) => x.kind === 'abandoned').map((x) => x.r.vendorCalls)),
    // The budget's case: never opened, and no browser waiting either.
    abandonedAloneMax: Math.max(...results.filter((x) => x.kind === 'abandoned' && !x.journey.watch).map((x) => x.r.vendorCalls)),
    outcomeLagP50: round(median(lags), 1),
    outcomeLagP95: round(percentile(lags, 95), 1),
    outcomeLagMax: round(Math.max(...lags), 1),
  };
}

/**
 * `neverBackOff` breaks the item on purpose (the bench's own test): the
 * worker is simulated with the fixed schedule, so the budget check fails.
 */
export async function polling(n = 1000, o: { neverBackOff?: boolean } = {}): Promise<PollingResult> {
  const js = journeys(n);
  const run = async (schedule: ReturnType<typeof defaultSchedule>) => {
    const out = [];
    for (const j of js) out.push({ ...j, r: await simulate(j.journey, { schedule, graceSeconds: 900 }) });
    return out;
  };
  const backoff = stats(await run(o.neverBackOff ? fixedSchedule() : defaultSchedule()));
  const fixed = stats(await run(fixedSchedule()));
  const mix = { returned: 0, phone: 0, abandoned: 0 } as Record<Kind, number>;
  for (const j of js) mix[j.kind]++;
  const result: PollingResult = {
    verifications: n,
    mix,
    backoff,
    fixed,
    budget: ABANDONED_BUDGET,
    withinBudget: backoff.abandonedAloneMax <= ABANDONED_BUDGET,
    settings: 'RESULT_POLL_SECONDS 30, RESULT_POLL_MAX_SECONDS 900, VERIFICATION_GRACE_SECONDS 900, one-hour links',
  };
  if (!result.withinBudget) {
    throw new Error(`an abandoned verification cost ${backoff.abandonedAloneMax} vendor result calls (budget ${ABANDONED_BUDGET})`);
  }
  return result;
}
