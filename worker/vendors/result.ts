/**
 * A verification's outcome in our words (`result`, docs/vendors.md): what
 * `/v1`, every webhook event's `data` and the partner read instead of the
 * vendor's word. Derived from the final record by the vendor's own mapping;
 * every verification so far is an `idv` one (a record names no vendor yet).
 */
import { finalFromRetryable, type VendorResult } from './adapter';
import { answerOf } from './idv/mapping';

/** The result of a final check status (`undefined` while it is not final). */
export function resultOfStatus(checkStatus: string | undefined): VendorResult | undefined {
  if (checkStatus === undefined) return undefined;
  const a = answerOf(checkStatus);
  if (a.state === 'final') return a.result;
  // A retryable ending that made the verification final: no attempts were left.
  if (a.state === 'retryable') return finalFromRetryable('idv', a);
  return undefined;
}
