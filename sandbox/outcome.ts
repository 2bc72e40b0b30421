/**
 * What the hosted flow's buttons do to a check. "Complete verification" gives
 * CHECKED_SUCCESS_CLEAR, "Fail verification" CHECKED_FAILED, unless the
 * person's family name (case-insensitive, exact) forces another status; the
 * family name wins over the button. `Pending` leaves the check CHECKING.
 */
import { CHECKING } from '../worker/vendors/idv/schemas';
import type { CheckRecord, FlowOutcome, SandboxStoreApi } from './store';

/** The final check statuses the sandbox gives (every value but CHECKING). */
export const FINAL_CHECK_STATUSES = [
  'CHECKED_SUCCESS_CLEAR',
  'CHECKED_SUCCESS_WITH_NOTES',
  'CHECKED_PARTIAL_SUCCESS',
  'CHECKED_FAILED',
  'NO_MATCH',
  'UNPROCESSABLE',
] as const;

/**
 * What `npm run sandbox -- complete --outcome <ours>` stands for on this
 * double: our outcome in its words. It has no abandoned flow (a check nobody
 * finishes simply stays CHECKING).
 */
export const STATUS_OF_OUTCOME = {
  verified: 'CHECKED_SUCCESS_CLEAR',
  failed: 'CHECKED_FAILED',
  inconclusive: 'CHECKED_PARTIAL_SUCCESS',
  requires_input: 'NO_MATCH',
} as const satisfies Record<string, (typeof FINAL_CHECK_STATUSES)[number]>;

export const FORCED_STATUS_BY_FAMILY_NAME: Record<string, string> = {
  Notes: 'CHECKED_SUCCESS_WITH_NOTES',
  Partial: 'CHECKED_PARTIAL_SUCCESS',
  Nomatch: 'NO_MATCH',
  Unprocessable: 'UNPROCESSABLE',
  Failed: 'CHECKED_FAILED',
  Clear: 'CHECKED_SUCCESS_CLEAR',
  Pending: CHECKING,
};

export function statusFor(outcome: FlowOutcome, familyName: string | undefined): string {
  const key = (familyName ?? '').trim().toLowerCase();
  for (const [name, status] of Object.entries(FORCED_STATUS_BY_FAMILY_NAME)) {
    if (name.toLowerCase() === key) return status;
  }
  return outcome === 'complete' ? 'CHECKED_SUCCESS_CLEAR' : 'CHECKED_FAILED';
}

/** Which check a forced outcome is for: the worker's own record of it (check id, link token, or its entity's latest). */
export interface CheckRef {
  entityId: string;
  checkId?: string;
  token?: string;
}

/**
 * Ends a check with `status` as if the person had finished the hosted flow
 * (what `npm run sandbox -- complete` asks for): the result call answers it
 * from now on. Null when no such check exists; a finished check is set again
 * (the command means "this is the outcome"), its link stays used.
 */
export async function forceStatus(store: SandboxStoreApi, ref: CheckRef, status: string, now: number): Promise<CheckRecord | null> {
  const byId = ref.checkId ? await store.getCheck(ref.checkId) : null;
  const byToken = !byId && ref.token ? await store.getCheckByLink(ref.token) : null;
  const check = byId ?? byToken ?? (await store.listChecks(ref.entityId))[0] ?? null;
  if (!check || check.entityId !== ref.entityId) return null;
  const success = status.startsWith('CHECKED_SUCCESS') || status === 'CHECKED_PARTIAL_SUCCESS';
  const settled: CheckRecord = {
    ...check,
    checkStatus: status,
    outcome: check.outcome ?? (success ? 'complete' : 'fail'),
    flowFinishedAt: check.flowFinishedAt ?? now,
    completedAt: now,
  };
  await store.putCheck(settled);
  return settled;
}
