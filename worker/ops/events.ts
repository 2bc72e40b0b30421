/**
 * The operator's events (docs/operations.md "Operator console"): what happened, per
 * partner, and nothing about the person. No name, date of birth, phone
 * number, customerRef, entity id, IP address or user agent ever goes in one;
 * the union below is the whole vocabulary, and every string in it is either
 * a fixed word or cut down to a short code (`code()`).
 *
 * Events go to a Cloudflare Queue (binding EVENTS_QUEUE) without delaying any
 * answer (`waitUntil`), and emitting never throws into the caller: a full or
 * missing queue costs a log line, never a request. Without the binding
 * (a deployment that has not created the queue, node tests) nothing is sent,
 * and the first event dropped says so in the log (`events_queue_missing`);
 * `/api/ruok` and `/ops` show it as a warning (binding-warnings.ts).
 */
import { bindingIfAny, type Env } from '../lib/env';
import type { VendorId, VendorOutcome } from '../vendors/adapter';
import { errorName } from '../lib/errors';
import { log } from '../lib/log';
import { systemClock } from '../lib/clock';
import { FORMER_OPERATIONS } from '../vendors/idv/former-operations';

export type { VendorOutcome };

/** A vendor call as the operator's events name it (the link, the result, the health check, …), whichever vendor: our words. */
export type VendorOperation = 'vendor-link' | 'result' | 'search' | 'vendor-health' | 'open' | 'cancel' | 'redact';

/** An operation's name as the console shows it (a row stored before the rename carries idv's word: its former name). */
export const operationName = (stored: string): string => FORMER_OPERATIONS[stored] ?? stored;

/**
 * Why a link went to the next vendor: the first vendor's call ended in an
 * outage (no answer in time, no connection, `error`: a 5xx or an unreadable
 * answer, `busy`: its 429), or it was known down and not asked (vendors/health.ts).
 */
export type FailoverCause = 'timeout' | 'network' | 'error' | 'busy' | 'known-down';

export type LinkChannel = 'redirect' | 'handoff' | 'sms';
export type WebhookFailure = 'timeout' | 'network';
/** What an attempt came to: delivered, gone (410: stop), retry (another attempt is queued), dead (no more attempts). */
export type WebhookResult = 'delivered' | 'gone' | 'retry' | 'dead';

/** Every event the worker counts. */
export type OpsEvent =
  | { type: 'widget.shown' }
  /** `vendor`: who made the link (absent in events sent before there was a choice: idv). */
  | { type: 'link.created'; channel: LinkChannel; vendor?: VendorId }
  /** A link made by `to` because `from` faulted (failover before start, docs/vendors.md). */
  | { type: 'link.failover'; from: VendorId; to: VendorId; cause: FailoverCause }
  /** Error code and the paths of the refused fields: never their values. */
  | { type: 'link.refused'; errorCode: string; fields: string[] }
  | { type: 'handoff.opened' }
  | { type: 'flow.returned'; outcome: 'success' | 'error' }
  | { type: 'verification.final'; checkStatus: string; secondsSinceLink: number; vendor?: VendorId }
  | { type: 'verification.expired'; reason: string }
  | { type: 'verification.canceled' }
  /** `vendor`: whose call (absent in events sent before there was a choice: idv). */
  | { type: 'vendor.call'; vendor?: VendorId; operation: VendorOperation; outcome: VendorOutcome; ms: number }
  | {
      type: 'webhook.attempt';
      verificationId: string;
      webhookType: string;
      attempt: number;
      /** The receiver's HTTP status, or why there was none. */
      status?: number;
      failure?: WebhookFailure;
      ms: number;
      result: WebhookResult;
    };

export type OpsEventType = OpsEvent['type'];

/** What travels on the queue: the event, whose partner, when, and an id that makes counting it idempotent. */
export type OpsMessage = OpsEvent & {
  /** Unique per event: a redelivered message carries the same id and is counted once. */
  id: string;
  /** Milliseconds since the epoch, when it happened. */
  at: number;
  partnerId: string;
};

/** Where a request's context can keep work going after the answer (Hono's executionCtx, a Durable Object's ctx). */
export interface WaitUntil {
  waitUntil(promise: Promise<unknown>): void;
}

const CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** A short code (error code, check status, reason, field path) or `OTHER`: nothing free-form reaches the queue. */
export function code(value: string | undefined): string {
  return value && CODE.test(value) ? value : 'OTHER';
}

/** A partner id as the queue may carry it (ids are slugs; anything else is unknown). */
function partnerKey(id: string | undefined): string {
  return id && CODE.test(id) ? id : '-';
}

/** An event id: time-ordered enough to read, random enough never to collide (128 bits). */
export function eventId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return `evt_${hex}`;
}

/** The event with its envelope, its strings reduced to codes. */
export function message(partnerId: string | undefined, event: OpsEvent, at = systemClock()): OpsMessage {
  const e = { ...event };
  switch (e.type) {
    case 'link.refused':
      e.errorCode = code(e.errorCode);
      e.fields = [...new Set(e.fields.map(code))].slice(0, 10);
      break;
    case 'verification.final':
      e.checkStatus = code(e.checkStatus);
      e.secondsSinceLink = Math.max(0, Math.round(e.secondsSinceLink));
      break;
    case 'verification.expired':
      e.reason = code(e.reason);
      break;
    case 'link.failover':
      e.cause = code(e.cause) as FailoverCause;
      break;
    case 'vendor.call':
    case 'webhook.attempt':
      e.ms = Math.max(0, Math.round(e.ms));
      if (e.type === 'webhook.attempt') e.webhookType = code(e.webhookType);
      break;
  }
  return { ...e, id: eventId(), at, partnerId: partnerKey(partnerId) };
}

function logFailure(err: unknown, count: number): void {
  log.error('ops_events_not_sent', { count, error: errorName(err) });
}

/** A request's (or an object's) events not sent yet: one queue call after the answer carries them all. */
const pending = new WeakMap<WaitUntil, { messages: OpsMessage[]; sending: Promise<void> }>();

function sendNow(queue: Queue, messages: OpsMessage[]): Promise<void> {
  return (
    messages.length === 1
      ? queue.send(messages[0], { contentType: 'json' })
      : queue.sendBatch(messages.map((body) => ({ body, contentType: 'json' as const })))
  ).then(
    () => undefined,
    (err: unknown) => logFailure(err, messages.length),
  );
}

/** Whether this isolate has logged a missing EVENTS_QUEUE (once is enough: every event after it is dropped the same way). */
// eslint-disable-next-line registries/no-dependency-registry -- a log-once flag, no dependency
let saidMissing = false;

/**
 * Sends events to the queue; never throws, never waits: with `ctx`, the send
 * runs after the answer (`waitUntil`), and every event the same context
 * emits before it runs joins it (a link request's vendor call and
 * `link.created` are one queue call, not one each); without one it runs on
 * its own. Resolves (for callers that may wait, such as queue consumers)
 * once sent or given up.
 */
export function emit(env: Pick<Env, 'EVENTS_QUEUE'>, ctx: WaitUntil | undefined, messages: OpsMessage[]): Promise<void> {
  const queue = bindingIfAny(env, 'EVENTS_QUEUE');
  if (!queue && messages.length && !saidMissing) {
    saidMissing = true;
    log.warn('events_queue_missing', { missing: 'EVENTS_QUEUE' });
  }
  if (!queue || messages.length === 0) return Promise.resolve();
  if (!ctx) {
    return Promise.resolve()
      .then(() => sendNow(queue, messages))
      .catch((err: unknown) => logFailure(err, messages.length));
  }
  const joined = pending.get(ctx);
  if (joined) {
    joined.messages.push(...messages);
    return joined.sending;
  }
  const batch: OpsMessage[] = [...messages];
  // The send starts after the answer (a timer runs once the handler has returned), so the request never pays for it.
  const sending = new Promise<void>((ok) => setTimeout(ok, 0))
    .then(() => {
      pending.delete(ctx);
      return sendNow(queue, batch);
    })
    .catch((err: unknown) => logFailure(err, batch.length));
  pending.set(ctx, { messages: batch, sending });
  try {
    ctx.waitUntil(sending);
  } catch {
    // No execution context (node tests): the promise runs on its own.
  }
  return sending;
}

/** One event now, for partner `partnerId` (see `emit`). */
export function emitOne(env: Pick<Env, 'EVENTS_QUEUE'>, ctx: WaitUntil | undefined, partnerId: string | undefined, event: OpsEvent): void {
  try {
    void emit(env, ctx, [message(partnerId, event)]);
  } catch (err) {
    logFailure(err, 1);
  }
}
