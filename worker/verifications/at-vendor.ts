/**
 * `/v1` cancel and redact at the verification's own vendor, where it has them
 * (`cancelAtVendor`, `redactAtVendor`; docs/vendors.md "Cancel and redact at
 * the vendor"), each asked about every subject the verification made there
 * (`vendor-subjects.ts`).
 *
 * - Both run in the verification's renewal turn (the lease a new link is
 *   made in): a renewal under way ends first, so its new subject is asked
 *   too, and one that comes meanwhile waits, then finds the verification
 *   ended. Should the turn lapse, a redaction still keeps what nobody asked
 *   the vendor about (`stillAtVendor`).
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
 * - A link made at the vendor that no verification keeps (it was canceled,
 *   or another request linked it, while the link was being made) is let go
 *   there: canceled where the vendor can, so nothing is left open.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { ApiError, errorName } from '../lib/errors';
import { log } from '../lib/log';
import type { Partner } from '../partners/partner';
import type { VendorAdapter, VendorId, VendorRef } from '../vendors/adapter';
import { isVendorOutage, vendorApiError, VendorError } from '../vendors/errors';
import { adapterOf } from '../vendors/for-partner';
import { lifecycle } from './lifecycle';
import { vendorOf, type Verification } from './verification';
import { vendorSubjects } from './vendor-subjects';

const refTo = (adapter: VendorAdapter, v: Pick<Verification, 'linkCreatedAt' | 'createdAt'>, subject: string): VendorRef => ({
  vendor: adapter.id,
  subject,
  check: subject,
  linkedAt: v.linkCreatedAt ?? v.createdAt,
});

const adapterOfVerification = (c: Context<AppEnv>, v: Verification) => adapterOf(c, c.get('partner')!, vendorOf(v));

/** `fn` on the record as it is once the verification's renewal turn is ours (undefined: it is gone); the turn ends after. */
async function inRenewalTurn<T>(c: Context<AppEnv>, id: string, fn: (v: Verification | undefined) => Promise<T>): Promise<T> {
  const store = c.var.ports.verifications;
  const turn = await store.execute(id, { type: 'renewal.begin' });
  try {
    return await fn(turn.v);
  } finally {
    await store.execute(id, { type: 'renewal.end', fence: turn.fence });
  }
}

/**
 * `/v1` cancel: the verification's subjects stopped at its vendor, then ours
 * canceled. Undefined: it is gone. Refused (409) once it has ended.
 */
export function cancelVerification(c: Context<AppEnv>, id: string): Promise<Verification | undefined> {
  return inRenewalTurn(c, id, async (v) => {
    if (!v) return undefined;
    const status = lifecycle(v);
    if (status !== 'created' && status !== 'open' && status !== 'requires_input') {
      throw new ApiError(409, 'VERIFICATION_ENDED', `This verification is ${status}: it cannot be canceled.`);
    }
    await cancelAtVendor(c, v);
    return c.var.ports.verifications.execute(id, { type: 'cancel' });
  });
}

/** Stops the verification's subjects at its vendor, before ours is canceled; a vendor fault is the route's error. */
async function cancelAtVendor(c: Context<AppEnv>, v: Verification): Promise<void> {
  if (v.vendor === undefined) return; // no link yet: nothing at any vendor
  const adapter = adapterOfVerification(c, v);
  if (!adapter.capabilities.cancelAtVendor || !adapter.cancel) return;
  for (const subject of vendorSubjects(v, adapter.capabilities.entityReuse)) {
    try {
      await adapter.cancel(refTo(adapter, v, subject));
    } catch (err) {
      // Already ended there (verified, canceled) or unknown: nothing left to stop.
      if (err instanceof VendorError && !isVendorOutage(err)) continue;
      throw vendorApiError(err);
    }
  }
}

/**
 * `/v1` redact: the verification's subjects erased at its vendor, and ours
 * whatever the vendor answered. Undefined: it is gone. A vendor fault is
 * thrown after ours is done (`redactionPendingError`).
 */
export function redactVerification(c: Context<AppEnv>, id: string): Promise<Verification | undefined> {
  return inRenewalTurn(c, id, async (v) => {
    if (!v) return undefined;
    const at = await redactAtVendor(c, v);
    const after = await c.var.ports.verifications.execute(id, { type: 'redact', ...(at ? { atVendor: at.asked } : {}) });
    if (after && at?.fault !== undefined) throw redactionPendingError(at.fault);
    return after;
  });
}

/** Asks the vendor to erase each of the verification's subjects; never throws (our redaction goes on). */
async function redactAtVendor(c: Context<AppEnv>, v: Verification) {
  if (v.vendor === undefined) return undefined;
  const adapter = adapterOfVerification(c, v);
  if (!adapter.capabilities.redactAtVendor || !adapter.redact) return undefined;
  const asked = vendorSubjects(v, adapter.capabilities.entityReuse);
  const pending: string[] = [];
  let fault: unknown;
  for (const subject of asked) {
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
  return { asked: { asked, pending, entityReuse: adapter.capabilities.entityReuse }, fault };
}

/**
 * The route's answer when the vendor's erasure is still pending: the fault's status and code, saying that ours is
 * done and a redact again asks the vendor again.
 */
function redactionPendingError(fault: unknown): ApiError {
  const e = vendorApiError(fault);
  return new ApiError(
    e.status,
    e.errorCode,
    'Redacted here, but the verification service did not confirm erasing its copy. Call redact again to ask it again.',
    e.issues,
    e.headers,
  );
}

/**
 * A link the vendor made that no verification keeps (it ended, or another
 * request linked it, meanwhile): canceled at the vendor where it can be, so
 * nobody can finish a check there that nothing here would read. Never throws:
 * the caller answers why it was not kept.
 */
export async function letGoAtVendor(c: Context<AppEnv>, partner: Partner, vendor: VendorId, subject: string, verificationId: string) {
  const adapter = adapterOf(c, partner, vendor);
  if (!adapter.capabilities.cancelAtVendor || !adapter.cancel) return;
  try {
    await adapter.cancel(refTo(adapter, { createdAt: c.var.clock() }, subject));
  } catch (err) {
    log.warn('vendor_cancel_of_unkept_link_failed', { verificationId, vendor, error: errorName(err) });
  }
}
