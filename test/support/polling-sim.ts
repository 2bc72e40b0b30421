/**
 * One verification's life on a controlled clock, run through the worker's own
 * `VerificationLogic` (the code the Durable Object runs): its alarm, browsers
 * asking `/api/result`, a person coming back from the hosted flow, and a
 * vendor that answers CHECKING, a final status, or fails. Counts the vendor
 * result calls it costs. Used by the polling tests and the bench's polling
 * item (the same schedule, the same code).
 */
import { type Verification } from '../../worker/verifications/verification';
import { CHECKING } from '../../worker/vendors/idv/mapping';
import { isOpen } from '../../worker/verifications/lifecycle';
import type { PollSchedule } from '../../worker/verifications/poll-schedule';
import { VerificationLogic } from '../../worker/verifications/verification-logic';
import { flat } from './state-view';

/** The widget's waits between `/api/result` calls after a return (its default `pollIntervals`, seconds). */
export const WIDGET_RETURN_WAITS = [1, 1, 2, 3, 5, 8, 10, 10, 10, 10];

export interface Journey {
  /** Seconds the hosted-flow link lives (default 3600, the vendor's usual hour). */
  linkSeconds?: number;
  /** Seconds after the link from which the vendor answers a final status (undefined: never). */
  finalAt?: number;
  /** Whether the vendor fails (a 5xx) at second `t`. */
  vendorDown?: (t: number) => boolean;
  /** The person comes back to the widget with a check id at this second; the widget then asks as it does (`WIDGET_RETURN_WAITS`). */
  returnAt?: number;
  /** A browser waits on `/api/result` (e.g. the first device beside a QR code): asks every `every` s from `from` to `to`. */
  watch?: { from: number; to: number; every: number };
}

export interface JourneyResult {
  /** Vendor result calls the verification cost. */
  vendorCalls: number;
  /** Seconds after the link at which each call was made. */
  callTimes: number[];
  outcome: 'final' | 'expired';
  /** Why it expired. */
  reason?: string;
  /** Seconds after the link at which the worker knew the outcome (final or expired). */
  endedAt: number;
}

export interface SimOptions {
  schedule: PollSchedule;
  /** VERIFICATION_GRACE_SECONDS (default 900). */
  graceSeconds?: number;
}

/** Runs one journey to its end (final or expired) and says what it cost. */
export async function simulate(j: Journey, o: SimOptions): Promise<JourneyResult> {
  const linkMs = (j.linkSeconds ?? 3600) * 1000;
  const graceMs = (o.graceSeconds ?? 900) * 1000;
  let now = 0;
  let record: Verification | undefined;
  let alarmAt: number | undefined;
  const callTimes: number[] = [];
  const logic = new VerificationLogic({
    load: async () => record,
    save: async (v) => void (record = v),
    remove: async () => void (record = undefined),
    setAlarm: async (at) => void (alarmAt = at),
    now: () => now,
    schedule: o.schedule,
    askVendor: async () => {
      const t = now / 1000;
      callTimes.push(t);
      if (j.vendorDown?.(t)) throw new Error('vendor 503');
      return { checkStatus: j.finalAt !== undefined && t >= j.finalAt ? 'CHECKED_SUCCESS_CLEAR' : CHECKING, entityId: 'e-1' };
    },
  });
  await logic.execute({
    type: 'create',
    verification: {
      id: 'vrf_SIMULATED0000000000000000',
      partnerId: 'partner',
      partnerOrigin: 'https://shop.example',
      entityId: 'e-1',
      workerOrigin: 'https://kyc.example',
      livemode: false,
      createdAt: 0,
      linkExpiresAt: linkMs,
      deadline: linkMs + graceMs,
      state: { name: 'open' },
      polls: 0,
      webhook: { state: 'none', attempts: 0 },
    },
  });

  // What browsers do, in seconds after the link: [when, with a check id (the return)].
  const asks: [number, boolean][] = [];
  if (j.watch) for (let t = j.watch.from; t <= j.watch.to; t += j.watch.every) asks.push([t, false]);
  if (j.returnAt !== undefined) {
    asks.push([j.returnAt, true]);
    let t = j.returnAt;
    for (const w of WIDGET_RETURN_WAITS) asks.push([(t += w), false]);
  }
  asks.sort((a, b) => a[0] - b[0]);

  for (let guard = 0; record && isOpen(record); guard++) {
    if (guard > 100_000) throw new Error('the simulation does not end');
    const nextAsk = asks[0] ? asks[0][0] * 1000 : Infinity;
    const next = Math.min(alarmAt ?? Infinity, nextAsk);
    if (next === Infinity) throw new Error('an open verification with no alarm');
    now = Math.max(now, next);
    if (next === nextAsk) {
      const [, back] = asks.shift()!;
      await logic.execute({ type: 'observe', hint: back ? { params: { checkId: 'chk-1' } } : {} }).catch(() => undefined); // the browser sees a 502 and asks again later
    } else {
      alarmAt = undefined;
      await logic.alarm();
    }
  }
  const v = record!;
  return {
    vendorCalls: callTimes.length,
    callTimes,
    outcome: flat(v).expiredAt === undefined ? 'final' : 'expired',
    ...(flat(v).expiredReason ? { reason: flat(v).expiredReason } : {}),
    endedAt: (flat(v).finalAt ?? flat(v).expiredAt!) / 1000,
  };
}

/** Today's schedule before backoff: every RESULT_POLL_SECONDS, whoever waits (the fixed schedule, for comparison). */
export const fixedSchedule = (pollSeconds = 30): PollSchedule => ({ pollMs: pollSeconds * 1000, maxMs: pollSeconds * 1000 });
/** The defaults: RESULT_POLL_SECONDS 30, RESULT_POLL_MAX_SECONDS 900. */
export const defaultSchedule = (): PollSchedule => ({ pollMs: 30_000, maxMs: 900_000 });
