/**
 * Access to verifications: a Durable Object each (`verification-durable.ts`,
 * keyed by verificationId), the `verifications` port (ports.ts). Node tests,
 * which have no binding, give a twin in its place (test/support/memory-verifications.ts).
 */
import type { Env } from '../lib/env';
import { ApiError, errorName } from '../lib/errors';
import { VendorError, vendorMismatchError, type VendorFault } from '../vendors/errors';
import { VendorMismatchError, type VendorAdapter, type VendorAnswer as AdapterAnswer, type VendorRef } from '../vendors/adapter';
import { adapterFor } from '../vendors/for-partner';
import { DEPRECATED_OPEN_STATUS } from '../vendors/result';
import type { Ports, Verifications } from '../ports';
import { partnerById } from '../partners/resolve';
import { attemptAnswer, type VendorAnswer } from './lifecycle';
import { vendorOf, type Verification } from './verification';
import type { WaitUntil } from '../ops/events';
import { log } from '../lib/log';

/** The verification's own vendor, as its partner (a partner removed meanwhile: nobody may ask on its behalf any more). */
export async function adapterOfRecord(env: Env, ports: Ports, v: Verification, waitUntil?: WaitUntil): Promise<VendorAdapter> {
  const partner = await partnerById(env, ports, v.workerOrigin, v.partnerId);
  if (!partner) throw new VendorError({ kind: 'status', status: 403 });
  return adapterFor(env, ports, partner, vendorOf(v), {
    origin: v.workerOrigin,
    partnerId: v.partnerId,
    ...(waitUntil ? { waitUntil } : {}),
  });
}

/**
 * The subject and check to ask about: the verification's subject and newest
 * link, or (with `check`) an earlier link's check. A vendor that makes a new
 * subject per link (one session each) is asked about that subject itself.
 */
function refOf(adapter: VendorAdapter, v: Verification, check?: string): VendorRef {
  const linkedAt = v.linkCreatedAt ?? v.createdAt;
  if (check === undefined) return { vendor: adapter.id, subject: v.entityId!, linkedAt }; // polled only once a link exists
  return adapter.capabilities.entityReuse
    ? { vendor: adapter.id, subject: v.entityId!, check, linkedAt }
    : { vendor: adapter.id, subject: check, check, linkedAt };
}

/**
 * The adapter's answer as the lifecycle takes it: "not finished" as the
 * deprecated `checkStatus`'s open value, an ended attempt as the
 * vendor's own word (its mapping, `vendors/result.ts`, says what it means),
 * about the subject asked (the adapter refused any other).
 */
function lifecycleAnswer(a: AdapterAnswer, subject: string): VendorAnswer {
  const at = a.check !== undefined ? { check: a.check } : {};
  if (a.state === 'pending') return { checkStatus: DEPRECATED_OPEN_STATUS, entityId: subject, ...at };
  if (a.state === 'retryable') return { checkStatus: a.vendorStatus, entityId: subject, ...at };
  return { checkStatus: a.result.vendorStatus, entityId: subject, ...at };
}

/** One question about the verification's subject: its newest link, or (with `check`) one the vendor named before. */
async function askOnce(adapter: VendorAdapter, v: Verification, check?: string): Promise<VendorAnswer> {
  try {
    return lifecycleAnswer(await adapter.latestResult(refOf(adapter, v, check)), v.entityId!);
  } catch (err) {
    // Never credited: an answer about someone else's subject fails the poll as a mismatch.
    if (err instanceof VendorMismatchError) {
      log.error('vendor_mismatch', { verificationId: v.id });
      throw vendorMismatchError();
    }
    throw err;
  }
}

/**
 * Asks the verification's own vendor about it, as its partner: its newest
 * link, and each earlier link's check of this attempt by the id the vendor
 * gave (`earlierChecks`), so the link the person completed is credited
 * whichever it was (`attemptAnswer` picks). Never with a check id or token a
 * browser brought: those only make the worker ask sooner, and another
 * person's check id (they appear in partner page URLs) must not make the
 * vendor answer about another check.
 */
export async function askVendor(env: Env, ports: Ports, v: Verification, waitUntil?: WaitUntil): Promise<VendorAnswer> {
  const adapter = await adapterOfRecord(env, ports, v, waitUntil);
  const earlier = (v.earlierChecks ?? []).map((id) =>
    askOnce(adapter, v, id).catch((err: unknown) => {
      // The newest link's answer still stands; this check is asked again at the next poll.
      log.warn('earlier_check_unanswered', { verificationId: v.id, error: errorName(err) });
      return undefined;
    }),
  );
  const [newest, ...others] = await Promise.all([askOnce(adapter, v), ...earlier]);
  return attemptAnswer([newest, ...others.filter((a) => a !== undefined)], v.entityId!);
}

/**
 * The check of the verification's current link, as the vendor names it when
 * asked about its subject (undefined when it names none, or the answer is
 * not about this subject): asked just before a new link replaces it, so a
 * person who completes the older link is still credited. A vendor that
 * cannot answer costs the person nothing: the new link is made anyway.
 */
export async function currentCheck(env: Env, ports: Ports, v: Verification): Promise<string | undefined> {
  try {
    const a = await askOnce(await adapterOfRecord(env, ports, v), v);
    return a.check;
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
    if (err instanceof VendorMismatchError) return { mismatch: true };
    throw err;
  }
}

export function offWire<T>(w: Wire<T>): T {
  if ('fault' in w) throw new VendorError(w.fault);
  if ('mismatch' in w) throw vendorMismatchError();
  return w.ok;
}

/** The verifications as Durable Objects, one per verification id (ports-for.ts builds it from the binding): one RPC method. */
export function durableVerifications(ns: Env['VERIFICATIONS']): Verifications {
  return {
    // The stub's type loses the command's own result type over RPC: the object answers ResultOf<C> for C.
    execute: async (id, command) => offWire((await ns.get(ns.idFromName(id)).execute(command)) as Wire<never>),
  };
}
