/**
 * The webhook outbox of one verification: every event its state changes
 * cause, kept in the verification's own Durable Object storage (written in
 * the same storage commit as the record), each with its per-verification
 * `sequence` (1, 2, 3…, stamped into `data.sequence` of the body, which then
 * never changes). The outbox, not the queue, remembers what is owed: the
 * Durable Object's alarm hands an event to the webhook queue when it is due
 * (at once, then at each retry the schedule sets) and again when the queue
 * consumer has not reported an attempt within ACK_WINDOW_MS (a message lost
 * to a crash or a restart) or the queue refused it. An event ends delivered,
 * gone (410), dead (the schedule ran out) or none (no endpoint), or with
 * the verification when its retention ends. Only an attempt the consumer
 * reports (the receiver answered, timed out or could not be reached) counts
 * toward the schedule: a hand-off the queue refused or the consumer never
 * reported is owed again, however long the queue is out, so an outage never
 * turns an event dead with attempts to spare.
 *
 * Pure functions over the entries and a clock: the Durable Object stores and
 * sends (verification-durable.ts), the consumer delivers (webhook-delivery.ts).
 */
import type { WebhookEvent } from './verification';

export type OutboxState = 'queued' | 'failed' | 'dead' | 'delivered' | 'gone' | 'none';

export interface OutboxEntry {
  sequence: number;
  /** The event as every attempt sends it (`data.sequence` in its body). */
  event: WebhookEvent;
  /** queued: handed to the queue (or about to be); failed: waiting for its next attempt. */
  state: OutboxState;
  /** Attempts the consumer reported. */
  attempts: number;
  /** Times it was handed to the queue (for the operator: an outage shows as many sends, few attempts). */
  sends: number;
  /** Hand-offs the queue refused in a row since the last attempt: each waits longer (REFUSED_RETRY_MS doubling, up to ACK_WINDOW_MS). */
  refusals?: number;
  lastStatus?: number;
  lastFailure?: 'timeout' | 'network';
  lastAttemptAt?: number;
  /** When the alarm hands it to the queue (again). */
  dueAt?: number;
  createdAt: number;
}

/** What one attempt came to, as the consumer reports it. */
export type AttemptReport =
  | { kind: 'delivered' | 'gone'; status: number }
  | { kind: 'failed'; status?: number; retryAfterSeconds?: number; failure?: 'timeout' | 'network' }
  | { kind: 'none' };

export interface RetryPolicy {
  /** WEBHOOK_RETRY_SCHEDULE, seconds: the wait after attempt n is step n (the last step repeats). */
  schedule: number[];
  /** WEBHOOK_MAX_ATTEMPTS. */
  maxAttempts: number;
}

/**
 * How long a hand-off may go unreported before the alarm hands the event to
 * the queue again: longer than a batch's wait plus an attempt's timeout, so a
 * healthy consumer is never raced; short enough that a lost message is sent
 * again within minutes.
 */
export const ACK_WINDOW_MS = 5 * 60 * 1000;
/** After the queue refused an event (or was unreachable): the first wait, doubling with each refusal in a row up to ACK_WINDOW_MS. */
export const REFUSED_RETRY_MS = 30 * 1000;

const UNDELIVERED: ReadonlySet<OutboxState> = new Set(['queued', 'failed', 'dead']);
const PENDING: ReadonlySet<OutboxState> = new Set(['queued', 'failed']);

export const isUndelivered = (e: OutboxEntry) => UNDELIVERED.has(e.state);
const isPending = (e: OutboxEntry) => PENDING.has(e.state);

/** The body with `data.sequence` (the rest byte for byte as the logic made it). */
export function stamped(event: WebhookEvent, sequence: number): WebhookEvent {
  const parsed = JSON.parse(event.body) as { data?: Record<string, unknown> };
  return { ...event, body: JSON.stringify({ ...parsed, data: { ...parsed.data, sequence } }) };
}

/**
 * The outbox with `event` added (due at once). The same event again (same
 * `webhook-id`: a redelivery) is a fresh delivery of the entry already kept,
 * its body and sequence unchanged.
 */
export function added(entries: readonly OutboxEntry[], event: WebhookEvent, now: number): OutboxEntry[] {
  const same = entries.find((e) => e.event.id === event.id);
  if (same) {
    const { refusals: _r, ...kept } = same;
    const fresh: OutboxEntry = { ...kept, state: 'queued', attempts: 0, sends: 0, dueAt: now };
    return entries.map((e) => (e === same ? fresh : e));
  }
  const sequence = entries.reduce((max, e) => Math.max(max, e.sequence), 0) + 1;
  return [...entries, { sequence, event: stamped(event, sequence), state: 'queued', attempts: 0, sends: 0, dueAt: now, createdAt: now }];
}

/** The wait after a failed attempt `attempt`: the schedule's step, or a longer `Retry-After`, never a shorter one. */
export function retryWaitSeconds(policy: RetryPolicy, attempt: number, retryAfterSeconds?: number): number {
  const step = policy.schedule[Math.min(attempt - 1, policy.schedule.length - 1)] ?? 0;
  return Math.max(step, retryAfterSeconds ?? 0);
}

/**
 * The entries due now, marked handed off (the caller writes them before it
 * sends). A hand-off is not an attempt: however many the queue refused or
 * the consumer never reported, the event stays owed (only `reported` makes
 * it dead, after its last real attempt). `_policy` is kept for the callers.
 */
export function handOff(
  entries: readonly OutboxEntry[],
  now: number,
  _policy?: RetryPolicy,
): { entries: OutboxEntry[]; due: OutboxEntry[] } {
  const due: OutboxEntry[] = [];
  const next = entries.map((e) => {
    if (!isPending(e) || e.dueAt === undefined || e.dueAt > now) return e;
    const sent: OutboxEntry = { ...e, state: 'queued', sends: e.sends + 1, dueAt: now + ACK_WINDOW_MS };
    due.push(sent);
    return sent;
  });
  return { entries: next, due };
}

/** The wait after the `refusals`-th refusal in a row: 30 s, 1, 2, 4 min, then every ACK_WINDOW_MS. */
export const refusedWaitMs = (refusals: number): number => Math.min(ACK_WINDOW_MS, REFUSED_RETRY_MS * 2 ** Math.max(0, refusals - 1));

/** The queue refused `sequence`: handed off again, sooner the first times, then as often as a lost message. */
export function refused(entries: readonly OutboxEntry[], sequence: number, now: number): OutboxEntry[] {
  return entries.map((e) => {
    if (e.sequence !== sequence || e.state !== 'queued') return e;
    const refusals = (e.refusals ?? 0) + 1;
    return { ...e, refusals, dueAt: now + refusedWaitMs(refusals) };
  });
}

/** The attempt the consumer may make for `sequence` now, or undefined (done, forgotten, or an attempt already reported). */
export function attemptFor(entries: readonly OutboxEntry[], sequence: number, attempt: number): OutboxEntry | undefined {
  const e = entries.find((x) => x.sequence === sequence);
  return e && isPending(e) && e.attempts < attempt ? e : undefined;
}

/** What an attempt came to for the operator: delivered, gone, retry, dead (or none: no endpoint). */
export type ReportResult = 'delivered' | 'gone' | 'retry' | 'dead' | 'none';

/**
 * The outbox after the consumer reported attempt `attempt` of `sequence`. A
 * report for an attempt already counted (a message handed off twice) changes
 * nothing and comes back undefined.
 */
export function reported(
  entries: readonly OutboxEntry[],
  sequence: number,
  attempt: number,
  report: AttemptReport,
  now: number,
  policy: RetryPolicy,
): { entries: OutboxEntry[]; entry: OutboxEntry; result: ReportResult } | undefined {
  const e = attemptFor(entries, sequence, attempt);
  if (!e) return undefined;
  const { dueAt: _d, lastStatus: _s, lastFailure: _f, refusals: _r, ...base } = e;
  let entry: OutboxEntry;
  let result: ReportResult;
  if (report.kind === 'none') {
    entry = { ...base, state: 'none' };
    result = 'none';
  } else {
    const at = { ...base, attempts: attempt, lastAttemptAt: now, ...(report.status !== undefined ? { lastStatus: report.status } : {}) };
    if (report.kind !== 'failed') {
      entry = { ...at, state: report.kind };
      result = report.kind;
    } else {
      const failure = report.failure ? { lastFailure: report.failure } : {};
      if (attempt >= policy.maxAttempts) {
        entry = { ...at, ...failure, state: 'dead' };
        result = 'dead';
      } else {
        const wait = retryWaitSeconds(policy, attempt, report.retryAfterSeconds);
        entry = { ...at, ...failure, state: 'failed', dueAt: now + wait * 1000 };
        result = 'retry';
      }
    }
  }
  return { entries: entries.map((x) => (x === e ? entry : x)), entry, result };
}

/** When the alarm must next hand something off; undefined when nothing is pending. */
export function nextDueAt(entries: readonly OutboxEntry[]): number | undefined {
  let at: number | undefined;
  for (const e of entries) if (isPending(e) && e.dueAt !== undefined && (at === undefined || e.dueAt < at)) at = e.dueAt;
  return at;
}

/** An event body without what a redaction forgets. */
export function redactedBody(body: string): string {
  const parsed = JSON.parse(body) as { data?: Record<string, unknown> };
  if (parsed.data) {
    delete parsed.data.customerRef;
    delete parsed.data.customerRefSource;
    delete parsed.data.entityId;
  }
  return JSON.stringify(parsed);
}

/** The outbox after a redaction: no kept body names the person's reference or entity any more. */
export const redacted = (entries: readonly OutboxEntry[]): OutboxEntry[] =>
  entries.map((e) => ({ ...e, event: { ...e.event, body: redactedBody(e.event.body) } }));

/** What `/v1` and `/ops` show of an undelivered event. */
export interface UndeliveredEvent {
  webhookId: string;
  type: string;
  sequence: number;
  state: 'queued' | 'failed' | 'dead';
  attempts: number;
  lastResponseStatus?: number;
  lastAttemptAt?: number;
  nextAttemptAt?: number;
}

export function undelivered(entries: readonly OutboxEntry[]): UndeliveredEvent[] {
  return entries.filter(isUndelivered).map((e) => ({
    webhookId: e.event.id,
    type: e.event.type,
    sequence: e.sequence,
    state: e.state as UndeliveredEvent['state'],
    attempts: e.attempts,
    ...(e.lastStatus !== undefined ? { lastResponseStatus: e.lastStatus } : {}),
    ...(e.lastAttemptAt !== undefined ? { lastAttemptAt: e.lastAttemptAt } : {}),
    ...(e.dueAt !== undefined ? { nextAttemptAt: e.dueAt } : {}),
  }));
}
