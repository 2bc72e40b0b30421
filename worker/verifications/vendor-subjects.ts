/**
 * A verification's subjects at its vendor: what the vendor knows it by. A
 * vendor that reuses one subject (`entityReuse`, idv's entity) has that one;
 * a vendor with one subject per link (Stripe: a session per link and per
 * attempt) has each link's and attempt's own. Those a redaction could not
 * erase there yet (`vendorRedactPending`) are still its.
 */
import type { Verification } from './verification';

export function vendorSubjects(v: Verification, entityReuse: boolean): string[] {
  const own = entityReuse ? [v.entityId] : [v.entityId, ...(v.earlierChecks ?? []), ...(v.attempts ?? []).map((a) => a.check)];
  return [...new Set([...own, ...(v.vendorRedactPending ?? [])].filter((s): s is string => typeof s === 'string' && s !== ''))];
}

/**
 * What a redaction keeps of the vendor's subjects: those whose erasure there
 * failed, and those the record has that nobody asked the vendor about (made
 * by a renewal while the vendor was being asked, should the turn that keeps
 * renewals out have lapsed). Ids only, until a later redaction erases them.
 */
export function stillAtVendor(v: Verification, at: AskedAtVendor): string[] {
  const unasked = vendorSubjects(v, at.entityReuse).filter((s) => !at.asked.includes(s));
  return [...new Set([...at.pending, ...unasked])];
}

/** A redaction's questions to the vendor: the subjects asked, those whose erasure failed, and how the vendor keeps subjects. */
export interface AskedAtVendor {
  asked: string[];
  pending: string[];
  entityReuse: boolean;
}
