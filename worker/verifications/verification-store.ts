/**
 * Access to verifications: a Durable Object each (`verification-durable.ts`,
 * keyed by verificationId). Node tests, which have no binding, inject a store
 * (test/support/memory-verifications.ts); without either the answer is 500
 * MISCONFIGURED naming the binding.
 */
import { bindingIfAny, missingBinding, type Env } from '../lib/env';
import { ApiError, errorName } from '../lib/errors';
import { VendorError, type VendorFault } from '../vendor-api/client';
import { vendorMismatch } from '../vendor-api/errors';
import { vendorClient } from '../vendor-api/from-env';
import { partnerById } from '../partners/resolve';
import { config } from '../config';
import { attemptAnswer, type VendorAnswer } from './lifecycle';
import { CHECKING, type LinkStart, type Renewal, type Verification, type WebhookEvent } from './verification';
import type { Arrival, ClaimOutcome, ReturnHint } from './verification-logic';
import type { WebhookState } from './verification';
import type { WaitUntil } from '../ops/events';
import type { AttemptReport, ReportResult, UndeliveredEvent } from './webhook-outbox';
import { log } from '../lib/log';

/** The vendor's client for a verification's partner (a partner removed meanwhile: nobody may ask on its behalf any more). */
async function vendorOf(env: Env, v: Verification, waitUntil?: WaitUntil) {
  const partner = await partnerById(env, v.workerOrigin, v.partnerId);
  if (!partner) throw new VendorError({ kind: 'status', status: 403 });
  return vendorClient(env, partner, { origin: v.workerOrigin, partnerId: v.partnerId, ...(waitUntil ? { waitUntil } : {}) });
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
export async function askVendor(env: Env, v: Verification, waitUntil?: WaitUntil): Promise<VendorAnswer> {
  const vendor = await vendorOf(env, v, waitUntil);
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
export async function currentCheck(env: Env, v: Verification): Promise<string | undefined> {
  try {
    const a = await askOnce(env, await vendorOf(env, v), v);
    return a.entityId === v.entityId ? a.checkId : undefined;
  } catch (err) {
    log.warn('current_check_unknown', { verificationId: v.id, error: errorName(err) });
    return undefined;
  }
}

/**
 * An observation as it crosses the Durable Object's RPC boundary, where
 * thrown errors lose their class: a vendor fault or a mismatch travels as
 * data and is thrown again on this side.
 */
export type Observation = { v: Verification | undefined } | { fault: VendorFault } | { mismatch: true };

export async function observeSafely(run: () => Promise<Verification | undefined>): Promise<Observation> {
  try {
    return { v: await run() };
  } catch (err) {
    if (err instanceof VendorError) return { fault: err.fault };
    if (err instanceof ApiError && err.errorCode === 'VENDOR_MISMATCH') return { mismatch: true };
    throw err;
  }
}

export function unpack(o: Observation): Verification | undefined {
  if ('fault' in o) throw new VendorError(o.fault);
  if ('mismatch' in o) throw vendorMismatch();
  return o.v;
}

/** What the routes and the queue consumer use, whichever store is behind it. */
export interface Verifications {
  create(v: Verification): Promise<void>;
  observe(id: string, hint?: ReturnHint): Promise<Verification | undefined>;
  webhookOutcome(id: string, state: WebhookState, attempts: number, status?: number): Promise<void>;
  /** The record as it is, without asking the vendor. */
  read(id: string): Promise<Verification | undefined>;
  /** A new link for the same verification; undefined when it has ended or had its renewals. */
  renew(id: string, r: Renewal): Promise<Verification | undefined>;
  /** Handoff: the hosted flow's URL for a valid, unused handoff token (then used, unless `consume` is false). */
  openHandoff(id: string, token: string, consume?: boolean): Promise<string | undefined>;
  /** Handoff: the phone's return with the return secret (single use). */
  arrive(id: string, secret: string, outcome: 'success' | 'error', hint: ReturnHint): Promise<Arrival | undefined>;
  /** Handoff by text message: the first device's code, entered by the browser that arrived (its key). */
  claim(id: string, browserKey: string, code: string): Promise<ClaimOutcome>;
  /** A server-started verification's first link; undefined when it is no longer `created`. */
  startLink(id: string, s: LinkStart): Promise<Verification | undefined>;
  /** `/v1` cancel: the record after (unchanged when it had ended already). */
  cancel(id: string): Promise<Verification | undefined>;
  /** `/v1` redact: the record after. */
  redact(id: string): Promise<Verification | undefined>;
  /** `/v1` redeliver: the event queued again; undefined while it has not ended. */
  redeliver(id: string): Promise<WebhookEvent | undefined>;
  /** The events not delivered yet (queued, failed, dead). */
  undelivered(id: string): Promise<UndeliveredEvent[]>;
  /** The queue consumer: the event to attempt (its outbox copy), or undefined when that attempt is no longer owed. */
  outboxEvent(id: string, sequence: number, attempt: number): Promise<WebhookEvent | undefined>;
  /** The queue consumer: what an attempt came to; undefined when it was already reported. */
  webhookAttempt(id: string, sequence: number, attempt: number, report: AttemptReport): Promise<ReportResult | undefined>;
  /** An event queued before the outbox existed, handed to it. */
  adopt(id: string, event: WebhookEvent): Promise<void>;
  /** The sandbox command (local stack only): the vendor asked at once, as for a person back from the hosted flow. */
  askNow(id: string): Promise<Verification | undefined>;
  /** The sandbox command (local stack only): an open verification ends as expired now. */
  expireNow(id: string): Promise<Verification | undefined>;
}

const injected = new WeakMap<Env, Verifications>();

/** Node tests (no Durable Object binding): the store requests carrying `env` use (test/support/memory-verifications.ts). */
export function useMemoryVerifications(env: Env, store: Verifications): void {
  injected.set(env, store);
}

export function verifications(env: Env): Verifications {
  const ns = bindingIfAny(env, 'VERIFICATIONS');
  if (!ns) {
    const store = injected.get(env);
    if (!store) throw missingBinding('VERIFICATIONS');
    return store;
  }
  const stub = (id: string) => ns.get(ns.idFromName(id));
  return {
    create: (v) => stub(v.id).create(v),
    observe: async (id, hint = {}) => unpack(await stub(id).observe(hint)),
    webhookOutcome: (id, state, attempts, status) => stub(id).webhookOutcome(state, attempts, status),
    read: (id) => stub(id).read(),
    renew: (id, r) => stub(id).renew(r),
    openHandoff: (id, token, consume = true) => stub(id).openHandoff(token, consume),
    arrive: (id, secret, outcome, hint) => stub(id).arrive(secret, outcome, hint),
    claim: (id, browserKey, code) => stub(id).claim(browserKey, code),
    startLink: (id, s) => stub(id).startLink(s),
    cancel: (id) => stub(id).cancel(),
    redact: (id) => stub(id).redact(),
    redeliver: (id) => stub(id).redeliver(),
    undelivered: (id) => stub(id).undelivered(),
    outboxEvent: (id, sequence, attempt) => stub(id).outboxEvent(sequence, attempt),
    webhookAttempt: (id, sequence, attempt, report) => stub(id).webhookAttempt(sequence, attempt, report),
    adopt: (id, event) => stub(id).adopt(event),
    askNow: async (id) => unpack(await stub(id).askNow()),
    expireNow: (id) => stub(id).expireNow(),
  };
}
