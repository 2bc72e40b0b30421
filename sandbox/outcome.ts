/**
 * What the hosted flow's buttons do to a check. "Complete verification" gives
 * CHECKED_SUCCESS_CLEAR, "Fail verification" CHECKED_FAILED, unless the
 * person's family name (case-insensitive, exact) forces another status; the
 * family name wins over the button. `Pending` leaves the check CHECKING.
 */
import { CHECKING } from '../worker/vendor-api/schemas';
import type { FlowOutcome } from './store';

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
