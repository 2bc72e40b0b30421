/**
 * A verification's outcome in our words (`result`, docs/vendors.md): what
 * `/v1`, every webhook event's `data`, the result token and the browser read
 * instead of the vendor's word. The record keeps the vendor's own word
 * (`checkStatus`, deprecated outside); what it means is that vendor's
 * mapping, looked up here by the verification's vendor.
 */
import { finalFromRetryable, type VendorAnswer, type VendorId, type VendorResult } from './adapter';
import { answerOf as idvAnswerOf } from './idv/mapping';
import { answerOfWord as stripeAnswerOf } from './stripe/mapping';

/** The deprecated `checkStatus` while a verification has not ended (idv's word, for every vendor). */
export { DEPRECATED_OPEN_STATUS } from './idv/mapping';

/** What a vendor's stored word stands for. */
export function answerOfWord(vendor: VendorId, word: string): VendorAnswer {
  return vendor === 'stripe' ? stripeAnswerOf(word) : idvAnswerOf(word);
}

/** Whether an attempt that ended with `word` may be tried again (while attempts are left). */
export const isRetryable = (vendor: VendorId, word: string) => answerOfWord(vendor, word).state === 'retryable';

/** The result of a final word (`undefined` while it is not final); `vendor` defaults to the first vendor's records. */
export function resultOfStatus(checkStatus: string | undefined, vendor: VendorId = 'idv'): VendorResult | undefined {
  if (checkStatus === undefined) return undefined;
  const a = answerOfWord(vendor, checkStatus);
  if (a.state === 'final') return a.result;
  // A retryable ending that made the verification final: no attempts were left.
  if (a.state === 'retryable') return finalFromRetryable(vendor, a);
  return undefined;
}
