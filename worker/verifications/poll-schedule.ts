/**
 * When the vendor may be asked about one verification ("Polling budget"),
 * and when its alarm should next look at it. Whether it has ended, and its
 * deadline, are the lifecycle's (`lifecycle.ts`).
 */
import { hasLink, isOpen, requiresInput, vendorWaitEnds, type LifecycleSettings } from './lifecycle';
import type { Verification } from './verification';

/**
 * Polls one verification may make at once because a browser brought back a
 * check id or token it had not brought before (a return from the hosted
 * flow). Past these, a hint waits for the poll interval like any other
 * browser's call: 20 made-up check ids cost at most this many extra vendor
 * calls, and never spend the polls the alarm needs to find a real outcome.
 */
export const HINT_POLLS = 2;

/**
 * How often the vendor may be asked about one verification: `pollMs`
 * (RESULT_POLL_SECONDS) while a browser waits on `/api/result` or a person
 * has just returned; with no one waiting the alarm doubles its wait after
 * each poll, up to `maxMs` (RESULT_POLL_MAX_SECONDS); a failing vendor
 * doubles the wait the same way, whoever asks.
 */
export interface PollSchedule {
  pollMs: number;
  maxMs: number;
}

/** Who wants the vendor asked: a browser on `/api/result`, a person back from the hosted flow, or the alarm alone. */
export type PollCause = 'browser' | 'returned' | 'alarm';

/** The hard ceiling on polls of one verification before its deadline: its lifetime at the base interval, and a little. */
export const maxPolls = (v: Verification, s: PollSchedule) => Math.ceil((v.deadline - v.createdAt) / s.pollMs) + 3;

const doubled = (s: PollSchedule, times: number) => Math.min(s.maxMs, s.pollMs * 2 ** Math.min(times, 30));

/** The wait after the last poll before `cause` may ask again. */
export function pollWait(v: Verification, s: PollSchedule, cause: PollCause): number {
  const failed = v.failedPolls ?? 0;
  return doubled(s, cause === 'alarm' ? Math.max(failed, v.idlePolls ?? 0) : failed);
}

/** Past the deadline: no poll since it (the vendor is asked once more at once), then the failing vendor's back-off. */
const afterDeadline = (v: Verification, now: number) => now >= v.deadline;
const askedSinceDeadline = (v: Verification) => v.lastPolledAt !== undefined && v.lastPolledAt >= v.deadline;

/** Whether the vendor may be asked now for `cause`: a person who just returned at once, otherwise after the wait. */
export function pollDue(v: Verification, now: number, s: PollSchedule, cause: PollCause): boolean {
  // A server-started verification without a link, or one waiting for the next attempt, has nothing to ask about.
  if (!isOpen(v) || !hasLink(v) || requiresInput(v)) return false;
  if (afterDeadline(v, now)) {
    // A person who just came back is asked about at once here too (a return's own budget, HINT_POLLS, bounds it).
    return cause === 'returned' || !askedSinceDeadline(v) || now - v.lastPolledAt! >= doubled(s, v.failedPolls ?? 0);
  }
  if (v.polls >= maxPolls(v, s)) return false;
  return cause === 'returned' || v.lastPolledAt === undefined || now - v.lastPolledAt >= pollWait(v, s, cause);
}

/**
 * The record as a poll for `cause` starts (counted before the call: a slow or
 * failing vendor still costs a poll). A return's poll is counted in its own
 * budget (`hintPolls`), so returns never spend the polls the alarm needs.
 */
export const pollStarted = (v: Verification, now: number, cause: PollCause): Verification => ({
  ...v,
  lastPolledAt: now,
  ...(cause === 'returned' ? { hintPolls: (v.hintPolls ?? 0) + 1 } : { polls: v.polls + 1 }),
  idlePolls: cause === 'alarm' ? (v.idlePolls ?? 0) + 1 : 0,
});

/** When the alarm should next look at an open verification: its next poll on the schedule, or its deadline. */
export function nextAlarmAt(v: Verification, now: number, s: PollSchedule, l: LifecycleSettings): number {
  if (afterDeadline(v, now)) {
    // Not asked since the deadline: now (once: that poll marks it asked). Then a vendor that
    // could not answer is asked on its back-off, until it answers or the wait ends.
    if (!askedSinceDeadline(v)) return now;
    return Math.min(vendorWaitEnds(v, l), Math.max(v.lastPolledAt! + doubled(s, v.failedPolls ?? 0), now + 1000));
  }
  const due =
    v.polls >= maxPolls(v, s) || !hasLink(v) || requiresInput(v)
      ? v.deadline
      : v.lastPolledAt === undefined
        ? v.createdAt + s.pollMs
        : v.lastPolledAt + pollWait(v, s, 'alarm');
  // Never in the past (an alarm that set itself to now would spin).
  return Math.min(v.deadline, Math.max(due, now + 1000));
}

/** Whether a browser's new check id or token may make the vendor be asked at once. */
export const hintPollDue = (v: Verification): boolean => isOpen(v) && hasLink(v) && !requiresInput(v) && (v.hintPolls ?? 0) < HINT_POLLS;
