/**
 * `/v1` cancel and redact at the verification's own vendor, where it has them
 * (`cancelAtVendor`, `redactAtVendor`; docs/vendors.md "Cancel and redact at
 * the vendor"). A vendor with one subject per link (Stripe: a session per
 * link and per attempt) is asked about each subject the verification made.
 *
 * - Cancel goes to the vendor first: a fault there (no answer, no connection,
 *   5xx, 429) is the route's 502/504/503 and nothing changes here, so the
 *   partner's retry cancels both; a subject the vendor will not cancel (a 4xx:
 *   already verified, already canceled, unknown) has nothing left to stop.
 * - Redaction here never waits on the vendor: ours happens whatever the vendor
 *   answered. A subject the vendor could not be asked to erase (a fault) is
 *   kept on the record (`vendorRedactPending`, its id only) and the route
 *   answers the fault, so a later redact asks again; a subject the vendor
 *   refuses to erase (a 4xx, e.g. a session still processing) is logged as
 *   `vendor_redact_refused` and not asked again.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';
import { log } from '../lib/log';
import type { VendorAdapter, VendorRef } from '../vendors/adapter';
import { isVendorOutage, vendorApiError, VendorError } from '../vendors/errors';
import { adapterOf } from '../vendors/for-partner';
import { vendorOf, type Verification } from '../verifications/verification';

/** The verification's subjects at its vendor: its entity, or each link's and attempt's own (plus any still to erase). */
function subjectsOf(adapter: VendorAdapter, v: Verification): string[] {
  const own = adapter.capabilities.entityReuse
    ? [v.entityId]
    : [v.entityId, ...(v.earlierChecks ?? []), ...(v.attempts ?? []).map((a) => a.check)];
  return [...new Set([...own, ...(v.vendorRedactPending ?? [])].filter((s): s is string => typeof s === 'string' && s !== ''))];
}

const refTo = (adapter: VendorAdapter, v: Verification, subject: string): VendorRef => ({
  vendor: adapter.id,
  subject,
  check: subject,
  linkedAt: v.linkCreatedAt ?? v.createdAt,
});

const adapterOfVerification = (c: Context<AppEnv>, v: Verification) => adapterOf(c, c.get('partner')!, vendorOf(v));

/** Stops the verification's subjects at its vendor, before ours is canceled; a vendor fault is the route's error. */
export async function cancelAtVendor(c: Context<AppEnv>, v: Verification): Promise<void> {
  if (v.vendor === undefined) return; // no link yet: nothing at any vendor
  const adapter = adapterOfVerification(c, v);
  if (!adapter.capabilities.cancelAtVendor || !adapter.cancel) return;
  for (const subject of subjectsOf(adapter, v)) {
    try {
      await adapter.cancel(refTo(adapter, v, subject));
    } catch (err) {
      // Already ended there (verified, canceled) or unknown: nothing left to stop.
      if (err instanceof VendorError && !isVendorOutage(err)) continue;
      throw vendorApiError(err);
    }
  }
}

/** The vendor's faults of one redaction: the subjects still to erase there, and the first fault. */
export interface VendorRedaction {
  pending: string[];
  fault?: unknown;
}

/** Asks the vendor to erase each of the verification's subjects; never throws (our redaction goes on). */
export async function redactAtVendor(c: Context<AppEnv>, v: Verification): Promise<VendorRedaction> {
  if (v.vendor === undefined) return { pending: [] };
  const adapter = adapterOfVerification(c, v);
  if (!adapter.capabilities.redactAtVendor || !adapter.redact) return { pending: [] };
  const pending: string[] = [];
  let fault: unknown;
  for (const subject of subjectsOf(adapter, v)) {
    try {
      await adapter.redact(refTo(adapter, v, subject));
    } catch (err) {
      if (err instanceof VendorError && !isVendorOutage(err)) {
        log.warn('vendor_redact_refused', { verificationId: v.id, vendorStatus: err.status });
        continue;
      }
      pending.push(subject);
      fault ??= err;
    }
  }
  return { pending, ...(fault !== undefined ? { fault } : {}) };
}

/**
 * The route's answer when the vendor's erasure is still pending: the fault's status and code, saying that ours is
 * done and a redact again asks the vendor again.
 */
export function redactionPendingError(fault: unknown): ApiError {
  const e = vendorApiError(fault);
  return new ApiError(
    e.status,
    e.errorCode,
    'Redacted here, but the verification service did not confirm erasing its copy. Call redact again to ask it again.',
    e.issues,
    e.headers,
  );
}
