/**
 * Webhook delivery, as the Standard Webhooks spec says: headers `webhook-id`
 * (the same on every attempt), `webhook-timestamp` and `webhook-signature`
 * (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, made afresh for each
 * attempt), the body byte-identical every time. At least once: the
 * verification's outbox (webhook-outbox.ts) hands each attempt to the queue;
 * this consumer makes it and reports what came of it to the verification's
 * Durable Object, whose alarm schedules the next attempt (the retry schedule,
 * or a longer `Retry-After`), so a retry survives a restart. A 410 stops. No
 * redirect is followed. Failures are logged with the verification id, never
 * the body.
 */
import type { Env } from '../lib/env';
import { config } from '../config';
import type { WebhookEvent } from './verification';
import { webhookTarget, type WebhookTarget } from './webhook-target';
import { partnerById } from '../partners/resolve';
import { webhookSignature } from './webhook-signature';
import type { Ports } from '../ports';
import { emit, message } from '../ops/events';
import { errorName } from '../lib/errors';
import { systemClock, type Clock } from '../lib/clock';
import { log, type LogFields } from '../lib/log';
import { retryAfterSeconds } from '../lib/retry-after';

/** What travels on the queue: which event of which verification, and which attempt; the body stays in the outbox. */
export interface WebhookMessage extends Omit<WebhookEvent, 'body'> {
  sequence: number;
  attempt: number;
}

export type AttemptResult =
  | { kind: 'delivered'; status: number }
  | { kind: 'gone'; status: number }
  | { kind: 'failed'; status?: number; retryAfterSeconds?: number; failure?: 'timeout' | 'network' };

/** One attempt. */
export async function deliverOnce(
  target: WebhookTarget,
  event: WebhookEvent,
  timeoutMs: number,
  now: number,
  send: (url: string, init: RequestInit) => Promise<Response> = fetch,
): Promise<AttemptResult> {
  const timestamp = Math.floor(now / 1000);
  try {
    const res = await send(target.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'kyc-onboard-webhooks/1',
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': await webhookSignature(target.key, event.id, timestamp, event.body),
      },
      body: event.body,
    });
    await res.body?.cancel();
    if (res.status >= 200 && res.status < 300) return { kind: 'delivered', status: res.status };
    if (res.status === 410) return { kind: 'gone', status: 410 };
    const after = retryAfterSeconds(res.headers.get('Retry-After'), now);
    return { kind: 'failed', status: res.status, ...(after !== undefined ? { retryAfterSeconds: after } : {}) };
  } catch (err) {
    // refused, reset (network), or no answer within the timeout
    return {
      kind: 'failed',
      failure: errorName(err) === 'TimeoutError' || errorName(err) === 'AbortError' ? 'timeout' : 'network',
    };
  }
}

/** A delivery's log line: which verification, event and attempt (never the body or the endpoint). */
const logDelivery = (level: 'info' | 'error', event: string, m: WebhookMessage, extra: LogFields = {}) =>
  log[level](event, { verificationId: m.verificationId, type: m.type, attempt: m.attempt, ...extra });

/** Handles one message of the webhook queue; resolves once it may be acknowledged. */
export async function handleWebhookMessage(env: Env, ports: Ports, m: WebhookMessage, clock: Clock = systemClock): Promise<void> {
  const store = ports.verifications;
  // The outbox's copy (redacted since, if it was): undefined when this attempt is no longer owed (delivered meanwhile, forgotten).
  const event = await store.execute(m.verificationId, { type: 'outbox.event', sequence: m.sequence, attempt: m.attempt });
  if (!event) return;
  const partner = await partnerById(env, ports, m.workerOrigin, m.partnerId);
  let target = webhookTarget(env, partner, m.workerOrigin);
  let send: ((url: string, init: RequestInit) => Promise<Response>) | undefined;
  // A partner with no endpoint of its own: the route the deployment plugged in, if any.
  const route = !target && partner ? await ports.webhookTransport?.(env, partner, m.workerOrigin) : undefined;
  if (route) ({ target, send } = route);
  if (!target) {
    logDelivery('info', 'webhook_skipped_unconfigured', m);
    await store.execute(m.verificationId, { type: 'deliver', sequence: m.sequence, attempt: m.attempt, report: { kind: 'none' } });
    return;
  }
  const started = clock();
  const result = await deliverOnce(target, event, config(env).outcomes.webhookTimeoutMs, started, send);
  const ms = clock() - started;
  if (result.kind === 'gone') logDelivery('info', 'webhook_gone', m, { status: 410 });
  if (result.kind === 'failed') logDelivery('error', 'webhook_failed', m, { status: result.status });
  // The outbox decides what comes next (retry when, or dead); undefined: this attempt was already reported.
  const outcome = await store.execute(m.verificationId, { type: 'deliver', sequence: m.sequence, attempt: m.attempt, report: result });
  if (!outcome || outcome === 'none') return;
  if (outcome === 'dead') logDelivery('error', 'webhook_dead', m);
  // The operator's webhook.attempt: status or failure kind, time, attempt number, what came of it.
  await emit(env, undefined, [
    message(m.partnerId, {
      type: 'webhook.attempt',
      verificationId: m.verificationId,
      webhookType: m.type,
      attempt: m.attempt,
      ...(result.status !== undefined ? { status: result.status } : {}),
      ...(result.kind === 'failed' && result.failure ? { failure: result.failure } : {}),
      ms,
      result: outcome,
    }),
  ]);
}

/**
 * A dead letter: a message the consumer failed on until the queue gave up.
 * Logged only: the outbox still owes the event and hands it off again
 * (hand-offs are not attempts: it ends dead only after its real attempts).
 */
export function handleDeadLetter(m: WebhookMessage): void {
  logDelivery('error', 'webhook_dead_letter', m);
}

/**
 * At most this many attempts of one partner at once within a batch: a Worker
 * has 6 connections open at a time, so one partner whose endpoint hangs
 * (each attempt up to WEBHOOK_TIMEOUT_MS) never holds them all, and the other
 * partners' events of the batch go out beside it.
 */
export const PER_PARTNER_CONCURRENCY = 2;

/**
 * Runs `each` for every item, every key's items beside the others', at most
 * `perKey` of one key at once and, within a key, items of the same `lane`
 * (a verification: its events in order) one after another.
 */
export async function runBeside<T>(
  items: readonly T[],
  key: (item: T) => string,
  lane: (item: T) => string,
  perKey: number,
  each: (item: T) => Promise<void>,
): Promise<void> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  await Promise.all(
    [...groups.values()].map(async (group) => {
      // The group's lanes, taken by `perKey` workers; a lane is run by one worker at a time, in order.
      const lanes = new Map<string, T[]>();
      for (const item of group) lanes.set(lane(item), [...(lanes.get(lane(item)) ?? []), item]);
      const queue = [...lanes.values()];
      const worker = async () => {
        for (let next = queue.shift(); next; next = queue.shift()) for (const item of next) await each(item);
      };
      await Promise.all(Array.from({ length: Math.min(perKey, queue.length) }, worker));
    }),
  );
}

/** Handles one message of the webhook queue (what `consumeWebhookBatch` runs for each). */
export type MessageHandler = (env: Env, ports: Ports, m: WebhookMessage) => Promise<void>;

/**
 * The queue consumer (`queue()` of the entry, with the entry's ports): the
 * webhook queue and its dead-letter queue. The batch's messages are handled
 * beside each other (`runBeside`: per partner, at most PER_PARTNER_CONCURRENCY
 * at once), each acknowledged as soon as it is done: before, they went one at
 * a time, and one partner's slow endpoint delayed every partner's events.
 */
export async function consumeWebhookBatch(
  batch: MessageBatch<WebhookMessage>,
  env: Env,
  ports: Ports,
  handle: MessageHandler = handleWebhookMessage,
): Promise<void> {
  const dead = batch.queue.endsWith('-dlq');
  // A malformed message (not ours) may have no body.
  const body = (message: MessageBatch<WebhookMessage>['messages'][number]) => message.body as Partial<WebhookMessage> | undefined;
  await runBeside(
    batch.messages,
    (message) => String(body(message)?.partnerId),
    (message) => String(body(message)?.verificationId),
    PER_PARTNER_CONCURRENCY,
    async (message) => {
      try {
        // A message of the queue's earlier form (the whole event, no sequence; sent before the outbox existed):
        // the event goes into its verification's outbox, which delivers it from there.
        const m = message.body as WebhookMessage | WebhookEvent;
        if (!('sequence' in m)) await ports.verifications.execute(m.verificationId, { type: 'adopt', event: m });
        else if (dead) handleDeadLetter(message.body);
        else await handle(env, ports, message.body);
        message.ack();
      } catch (err) {
        log.error('webhook_consumer_error', { verificationId: body(message)?.verificationId, error: errorName(err) });
        message.retry({ delaySeconds: 30 });
      }
    },
  );
}
