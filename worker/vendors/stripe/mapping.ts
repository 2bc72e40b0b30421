/**
 * Stripe Identity's words in ours (docs/vendors.md "Mapping"): a session's
 * `status` and, while it requires input, its `last_error.code`.
 *
 * | Stripe | ours |
 * |---|---|
 * | `processing`; `requires_input` with no `last_error`; `abandoned` | pending (the same session can still be completed) |
 * | `requires_input` with a code a person may fix by trying again | retryable |
 * | `verified` | verified |
 * | `consent_declined`, `under_supported_age`, `country_not_supported`, `selfie_manipulated`, a declined email or phone check | failed |
 * | `canceled` (not by us) | failed, `other` |
 *
 * `vendorStatus` is the code when there is one, else the status.
 */
import type { Reason, VendorAnswer } from '../adapter';
import type { StripeSession } from './client';

/** Codes a person may fix by trying again (a new session), with our reason. */
export const RETRYABLE_CODES: Record<string, Reason> = {
  document_unverified_other: 'document_unverified',
  document_type_not_supported: 'document_unverified',
  document_expired: 'document_expired',
  selfie_document_missing_photo: 'selfie_mismatch',
  selfie_face_mismatch: 'selfie_mismatch',
  selfie_unverified_other: 'selfie_mismatch',
  id_number_mismatch: 'no_match',
  id_number_insufficient_document_data: 'no_match',
  id_number_unverified_other: 'no_match',
  device_not_supported: 'other',
  email_unverified_other: 'other',
  phone_unverified_other: 'other',
};

/** Codes that end the verification whatever attempts are left, with our reason. */
export const FINAL_CODES: Record<string, Reason> = {
  consent_declined: 'consent_declined',
  under_supported_age: 'under_age',
  country_not_supported: 'country_not_supported',
  selfie_manipulated: 'selfie_mismatch',
  email_verification_declined: 'consent_declined',
  phone_verification_declined: 'consent_declined',
};

/** What a retrieved session says about its attempt. */
export function answerOf(s: StripeSession): VendorAnswer {
  const check = s.id;
  switch (s.status) {
    case 'verified':
      return { state: 'final', check, result: { outcome: 'verified', vendor: 'stripe', vendorStatus: 'verified' } };
    case 'canceled':
      return { state: 'final', check, result: { outcome: 'failed', reason: 'other', vendor: 'stripe', vendorStatus: 'canceled' } };
    case 'processing':
      return { state: 'pending', check, vendorStatus: 'processing' };
    case 'requires_input': {
      const code = s.last_error?.code ?? undefined;
      // No error yet, or the person left: the same session still works (a fresh url on retrieve).
      if (!code || code === 'abandoned') return { state: 'pending', check, vendorStatus: code ?? 'requires_input' };
      const final = FINAL_CODES[code];
      if (final) return { state: 'final', check, result: { outcome: 'failed', reason: final, vendor: 'stripe', vendorStatus: code } };
      return { state: 'retryable', check, reason: RETRYABLE_CODES[code] ?? 'other', vendorStatus: code };
    }
  }
}

/**
 * The answer a stored word stands for (`vendorStatus` as `answerOf` gave it):
 * the record keeps the vendor's word, not the session.
 */
export function answerOfWord(word: string): VendorAnswer {
  if (word === 'verified') return { state: 'final', result: { outcome: 'verified', vendor: 'stripe', vendorStatus: word } };
  if (word === 'canceled') return { state: 'final', result: { outcome: 'failed', reason: 'other', vendor: 'stripe', vendorStatus: word } };
  const final = FINAL_CODES[word];
  if (final) return { state: 'final', result: { outcome: 'failed', reason: final, vendor: 'stripe', vendorStatus: word } };
  const retry = RETRYABLE_CODES[word];
  if (retry) return { state: 'retryable', reason: retry, vendorStatus: word };
  return { state: 'pending', vendorStatus: word };
}
