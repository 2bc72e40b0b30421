/**
 * What this isolate knows of each vendor's health, so that failover does not
 * pay a timeout per request (docs/vendors.md "Failover"). One rule: a vendor
 * that just failed with an outage (a timeout, no connection, an unreadable
 * answer, a 5xx or a 429), at link creation or at `/api/ruok`, is **known
 * down** for VENDOR_DOWN_MS; any answer that is not an outage (a link made, a
 * 4xx, `ruok` OK) makes it known up again. While a vendor is known down, a
 * partner with failover goes straight to its next vendor without asking it;
 * once the window has passed, the next link asks it again (so the first
 * request after an outage begins, and one request per window while it lasts,
 * pay at most one KYC_TIMEOUT_MS).
 *
 * Per isolate and in memory, on purpose: nothing to store or clean up, and a
 * wrong guess costs one request a timeout (a new isolate learns on its first
 * fault) or sends a few links to the next vendor for at most the window.
 */
import type { VendorId } from './adapter';

/** How long an outage is remembered: the window of `/api/ruok`'s answers (RUOK_CACHE_MS). */
export const VENDOR_DOWN_MS = 10_000;

/** Vendor → until when it is known down (ms since the epoch). */
const downUntil = new Map<VendorId, number>();

/** Whether `vendor` is known down at `now`. */
export function knownDown(vendor: VendorId, now: number): boolean {
  const until = downUntil.get(vendor);
  return until !== undefined && now < until;
}

/** `vendor` failed with an outage at `now`. */
export function markDown(vendor: VendorId, now: number): void {
  downUntil.set(vendor, now + VENDOR_DOWN_MS);
}

/** `vendor` answered (anything but an outage). */
export function markUp(vendor: VendorId): void {
  downUntil.delete(vendor);
}

/** Tests start from nothing known. */
export function resetVendorHealth(): void {
  downUntil.clear();
}
