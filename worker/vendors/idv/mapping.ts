/**
 * The idv vendor's words in ours (docs/vendors.md "Mapping"): its check
 * statuses, and the field paths of its ErrorObject.
 *
 * | idv `checkStatus` | ours |
 * |---|---|
 * | `CHECKING` (or none yet) | pending |
 * | `CHECKED_SUCCESS_CLEAR` | verified |
 * | `CHECKED_SUCCESS_WITH_NOTES` | verified, `with_notes` |
 * | `CHECKED_PARTIAL_SUCCESS` | inconclusive |
 * | `CHECKED_FAILED` | failed, `other` |
 * | `NO_MATCH`, `UNPROCESSABLE` | retryable (`no_match`, `unprocessable`); failed with no attempts left |
 * | any other word | inconclusive, `other` (final: the vendor says it is done, in a word we do not know) |
 */
import type { Reason, VendorAnswer, VendorResult } from '../adapter';

export const CHECKING = 'CHECKING';
/**
 * The deprecated `checkStatus`'s value while a verification has not ended,
 * whatever its vendor: idv's word for a check under way, kept for partners
 * that still read the field (docs/vendors.md). Nothing outside this folder
 * spells it.
 */
export const DEPRECATED_OPEN_STATUS = CHECKING;

const FINAL: Record<string, Omit<VendorResult, 'vendor' | 'vendorStatus'>> = {
  CHECKED_SUCCESS_CLEAR: { outcome: 'verified' },
  CHECKED_SUCCESS_WITH_NOTES: { outcome: 'verified', reason: 'with_notes' },
  CHECKED_PARTIAL_SUCCESS: { outcome: 'inconclusive' },
  CHECKED_FAILED: { outcome: 'failed', reason: 'other' },
};

export const RETRYABLE: Record<string, Reason> = {
  NO_MATCH: 'no_match',
  UNPROCESSABLE: 'unprocessable',
};

/** The answer for a check status (`check`: the check it was about, when the vendor named it). */
export function answerOf(checkStatus: string, check?: string): VendorAnswer {
  const at = check !== undefined ? { check } : {};
  if (!checkStatus || checkStatus === CHECKING) return { state: 'pending', vendorStatus: checkStatus || CHECKING, ...at };
  const reason = RETRYABLE[checkStatus];
  if (reason) return { state: 'retryable', reason, vendorStatus: checkStatus, ...at };
  const final = FINAL[checkStatus] ?? { outcome: 'inconclusive', reason: 'other' };
  return { state: 'final', result: { ...final, vendor: 'idv', vendorStatus: checkStatus }, ...at };
}

/** The vendor's field paths that are ours, renamed (anything else is `<body>`). */
const FIELD_MAP: [RegExp, string][] = [
  [/^entity\.name\.(givenName|middleName|familyName)$/, 'name.$1'],
  [/^entity\.dateOfBirth(\.dateOfBirth)?$/, 'dateOfBirth'],
  [/^phoneCode$/, 'phone.code'],
  [/^phoneNumber$/, 'phone.number'],
  [/^consent$/, 'consent'],
  [/^customerRef$/, 'customerRef'],
  [/^(successRedirectURL|errorRedirectURL)$/, 'returnUrl'],
];

/** Our name of a vendor field path (`<body>` when it is none of ours). */
export function ourField(location: string | undefined): string {
  for (const [re, to] of FIELD_MAP) if (location && re.test(location)) return location.replace(re, to);
  return '<body>';
}
