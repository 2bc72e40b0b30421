/**
 * Access to verifications: a Durable Object each (`verification-durable.ts`,
 * keyed by verificationId), the `verifications` port (ports.ts). Node tests,
 * which have no binding, give a twin in its place (test/support/memory-verifications.ts).
 */
import type { Env } from '../lib/env';
import { ApiError, errorName } from '../lib/errors';
import { VendorError, type VendorFault } from '../vendor-api/client';
import { vendorMismatch } from '../vendor-api/errors';
import { vendorClient } from '../vendor-api/from-env';
import type { Ports, Verifications } from '../ports';
import { partnerById } from '../partners/resolve';
import { config } from '../config';
import { attemptAnswer, type VendorAnswer } from './lifecycle';
import { CHECKING, type Verification } from './verification';
import type { WaitUntil } from '../ops/events';
import { log } from '../lib/log';

/** The vendor's client for a verification's partner (a partner removed meanwhile: nobody may ask on its behalf any more). */
async function vendorOf(env: Env, ports: Ports, v: Verification, waitUntil?: WaitUntil) {
  const partner = await partnerById(env, ports, v.workerOrigin, v.partnerId);
  if (!partner) throw new VendorError({ kind: 'status', status: 403 });
  return vendorClient(env, ports, partner, { origin: v.workerOrigin, partnerId: v.partnerId, ...(waitUntil ? { waitUntil } : {}) });
}

type Vendor = Awaited<ReturnType<typeof vendorOf>>;

/** One result call about the verification's entity: its newest check, or (with `checkId`) one the vendor named before. */
async function askOnce(env: Env, vendor: Vendor, v: Verification, checkId?: string): Promise<VendorAnswer> {
  const { provider } = config(env).vendor;
  try {
    const answer = await vendor.result({
      ...(checkId !== undefined ? { checkId } : {}),
      entity: { entityId: v.entityId! }, // polled only once a link exists
      ...(provider ? { provider } : {}),
    });
    const named = (answer as { checkId?: unknown }).checkId;
    return {
      checkStatus: answer.checkStatus,
      entityId: answer.entity?.entityId,
      ...(typeof named === 'string' ? { checkId: named } : {}),
    };
  } catch (err) {
    // "Not found" for a check the worker itself started means the vendor has
    // nothing yet (the person has not begun): not finished, not a fault.
    if (err instanceof VendorError && err.fault.kind === 'status' && err.fault.status === 404) {
      log.info('vendor_check_not_found', { verificationId: v.id });
      return { checkStatus: CHECKING, entityId: v.entityId, ...(checkId !== undefined ? { checkId } : {}) };
    }
    throw err;
  }
}

/**
 * Asks the vendor about a verification's entity, as its partner: its newest
 * check, and each earlier link's check of this attempt by the id the vendor
 * gave (`earlierChecks`), so the link the person completed is credited
 * whichever it was (`attemptAnswer` picks). Never with a check id or token a
 * browser brought: those only make the worker ask sooner, and another
 * person's check id (they appear in partner page URLs) must not make the
 * vendor answer about another check.
 */
export async function askVendor(env: Env, ports: Ports, v: Verification, waitUntil?: WaitUntil): Promise<VendorAnswer> {
  const vendor = await vendorOf(env, ports, v, waitUntil);
  const earlier = (v.earlierChecks ?? []).map((id) =>
    askOnce(env, vendor, v, id).catch((err: unknown) => {
      // The newest link's answer still stands; this check is asked again at the next poll.
      log.warn('earlier_check_unanswered', { verificationId: v.id, error: errorName(err) });
      return undefined;
    }),
  );
  const [newest, ...others] = await Promise.all([askOnce(env, vendor, v), ...earlier]);
  return attemptAnswer([newest, ...others.filter((a) => a !== undefined)], v.entityId!);
}

/**
 * The check of the verification's current link, as the vendor names it when
 * asked about the entity (undefined when it names none, or the answer is not
 * about this entity): asked just before a new link replaces it, so a person
 * who completes the older link is still credited. A vendor that cannot
 * answer costs the person nothing: the new link is made anyway.
 */
export async function currentCheck(env: Env, ports: Ports, v: Verification): Promise<string | undefined> {
  try {
    const a = await askOnce(env, await vendorOf(env, ports, v), v);
    return a.entityId === v.entityId ? a.checkId : undefined;
  } catch (err) {
    log.warn('current_check_unknown', { verificationId: v.id, error: errorName(err) });
    return undefined;
  }
}

/**
 * A command's answer as it crosses the Durable Object's RPC boundary, where
 * thrown errors lose their class: a vendor fault or a mismatch travels as
 * data and is thrown again on this side (`offWire`).
 */
export type Wire<T> = { ok: T } | { fault: VendorFault } | { mismatch: true };

export async function onWire<T>(run: () => Promise<T>): Promise<Wire<T>> {
  try {
    return { ok: await run() };
  } catch (err) {
    if (err instanceof VendorError) return { fault: err.fault };
    if (err instanceof ApiError && err.errorCode === 'VENDOR_MISMATCH') return { mismatch: true };
    throw err;
  }
}

export function offWire<T>(w: Wire<T>): T {
  if ('fault' in w) throw new VendorError(w.fault);
  if ('mismatch' in w) throw vendorMismatch();
  return w.ok;
}

/** The verifications as Durable Objects, one per verification id (ports-for.ts builds it from the binding): one RPC method. */
export function durableVerifications(ns: Env['VERIFICATIONS']): Verifications {
  return {
    execute: async (id, command) => offWire(await ns.get(ns.idFromName(id)).execute(command)) as never,
  };
}
