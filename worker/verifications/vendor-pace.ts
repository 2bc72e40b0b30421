/**
 * How polls keep off a vendor that is catching up (issue 40, the restart
 * storm: 3,904 overdue alarms made 3,494 result calls in about 50 s after a
 * restart). Two rules, both the alarm's:
 *
 * - An overdue poll is spread: an alarm that runs later than it was set for
 *   (the worker was down, every overdue alarm fires at once when it is back)
 *   does not poll at once but at a random time within the spread ahead:
 *   at least the poll interval, longer for a longer lateness, at most
 *   RESULT_POLL_MAX_SECONDS.
 * - A vendor 429 pauses the partner, not one verification: its end (the
 *   vendor's `Retry-After`, or VENDOR_BUSY_DEFAULT_SECONDS) is kept where
 *   every verification of the partner looks before it asks (the LIMITS
 *   object of `vendor-paused {partnerId}`), and none asks before it; each then
 *   asks at a random time within one poll interval after it.
 *
 * A browser waiting on `/api/result` is not spread (it asks as it always
 * has) but does keep to a partner's pause: nobody asks the vendor before
 * its `Retry-After`.
 */
import type { Allowances } from '../lib/allowances';
import { VendorError, VENDOR_BUSY_DEFAULT_SECONDS } from '../vendors/errors';
import type { PollSchedule } from './poll-schedule';

/**
 * An alarm later than this after its time is overdue: an ordinary alarm runs
 * within a second or two, a busy machine's a few more; a restart leaves every
 * alarm set for its downtime at once.
 */
export const OVERDUE_AFTER_MS = 10_000;

/** Where a partner's pause is kept: asked before every poll of its verifications, written on a vendor 429. */
export interface VendorPace {
  pausedUntil(partnerId: string): Promise<number | undefined>;
  /** Pauses the partner's calls until at least `until`; the pause's end. */
  pause(partnerId: string, until: number): Promise<number>;
}

const pauseKey = (partnerId: string) => `vendor-paused ${partnerId}`;

/** The pace kept in the budgets' objects (allowances.ts `pause`), one per partner. */
export const allowancesPace = (a: Allowances): VendorPace => ({
  pausedUntil: (partnerId) => a.pausedUntil(pauseKey(partnerId)),
  pause: (partnerId, until) => a.pause(pauseKey(partnerId), until),
});

/**
 * When an alarm set for `plannedAt` and running at `now` should poll instead,
 * if it is overdue (undefined: it is not, poll now): a random time within the
 * spread from now, the spread at least the poll interval and at most the
 * longest wait, longer for a longer lateness.
 */
export function spreadOverdue(plannedAt: number | undefined, now: number, s: PollSchedule, random: () => number): number | undefined {
  if (plannedAt === undefined || now - plannedAt <= OVERDUE_AFTER_MS) return undefined;
  const spread = Math.min(s.maxMs, Math.max(s.pollMs, now - plannedAt));
  return now + 1000 + Math.floor(random() * spread);
}

/** When a verification polls after its partner's pause ends: within one poll interval after it, never before. */
export const afterPause = (until: number, s: PollSchedule, random: () => number): number => until + 1 + Math.floor(random() * s.pollMs);

/** The end of the pause a vendor fault asks for: its 429's `Retry-After` (or the default) from now; undefined for any other fault. */
export function pauseAskedFor(err: unknown, now: number): number | undefined {
  if (!(err instanceof VendorError) || err.fault.kind !== 'status' || err.fault.status !== 429) return undefined;
  return now + (err.fault.retryAfterSeconds ?? VENDOR_BUSY_DEFAULT_SECONDS) * 1000;
}
