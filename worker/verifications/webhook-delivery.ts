/**
 * Webhook delivery, as the Standard Webhooks spec says: headers `webhook-id`
 * (the same on every attempt), `webhook-timestamp` and `webhook-signature`
 * (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, made afresh for each
 * attempt), the body byte-identical every time. Through a Cloudflare Queue,
 * at least once: a failed attempt is sent again to the queue with the delay
 * the schedule (or the receiver's `Retry-After`) asks for; a 410 stops; after
 * the last attempt the event goes to the dead-letter queue, which this worker
 * consumes and records. No redirect is followed. Failures are logged with the
 * verification id, never the body.
 */
import type { Env } from '../lib/env';
import { config } from '../config';
import type { WebhookEvent } from './verification';
import { verifications } from './verification-store';
import { webhookTarget, type WebhookTarget } from './webhook-target';
import { partnerById } from '../partners/resolve';
import { webhookSignature } from './webhook-signature';
import { bindingIfAny } from '../lib/env';
import { pluggedWebhookRoute } from './webhook-transport';
import { emit, message, type WebhookResult } from '../ops/events';
import { errorName } from '../lib/errors';

/** What travels on the queue: the event, which attempt comes next, and not before when. */
export interface WebhookMessage extends WebhookEvent {
  attempt: number;
  notBefore?: number;
}

/** Cloudflare Queues delays a message by at most 12 hours; longer waits hop. */
export const MAX_QUEUE_DELAY_SECONDS = 12 * 60 * 60;

export type AttemptResult =
  | { kind: 'delivered'; status: number }
  | { kind: 'gone'; status: number }
  | { kind: 'failed'; status?: number; retryAfterSeconds?: number; failure?: 'timeout' | 'network' };

function retryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value) : (Date.parse(value) - now) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, Math.min(Math.ceil(seconds), 86_400)) : undefined;
}

/** One attempt. */
export async function deliverOnce(
  target: WebhookTarget,
  event: WebhookEvent,
  timeoutMs: number,
  now = Date.now(),
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
    const after = retryAfter(res.headers.get('Retry-After'), now);
    return { kind: 'failed', status: res.status, ...(after !== undefined ? { retryAfterSeconds: after } : {}) };
  } catch (err) {
    // refused, reset (network), or no answer within the timeout
    return {
      kind: 'failed',
      failure: errorName(err) === 'TimeoutError' || errorName(err) === 'AbortError' ? 'timeout' : 'network',
    };
  }
}

const log = (level: 'info' | 'error', event: string, m: WebhookMessage, extra: Record<string, unknown> = {}) =>
  console[level === 'error' ? 'error' : 'log'](
    JSON.stringify({ level, event, verificationId: m.verificationId, type: m.type, attempt: m.attempt, ...extra }),
  );

async function requeue(env: Env, m: WebhookMessage, delaySeconds: number, now: number): Promise<void> {
  const delay = Math.min(delaySeconds, MAX_QUEUE_DELAY_SECONDS);
  const notBefore = delaySeconds > MAX_QUEUE_DELAY_SECONDS ? now + delaySeconds * 1000 : undefined;
  const { notBefore: _old, ...rest } = m;
  await env.WEBHOOK_QUEUE.send({ ...rest, ...(notBefore ? { notBefore } : {}) } satisfies WebhookMessage, {
    contentType: 'json',
    delaySeconds: delay,
  });
}

/** An event body without what a redaction forgets. */
export function redactedBody(body: string): string {
  const parsed = JSON.parse(body) as { data?: Record<string, unknown> };
  if (parsed.data) {
    delete parsed.data.customerRef;
    delete parsed.data.entityId;
  }
  return JSON.stringify(parsed);
}

/** Handles one message of the webhook queue; resolves once it may be acknowledged. */
export async function handleWebhookMessage(env: Env, body: WebhookEvent | WebhookMessage, now = Date.now()): Promise<void> {
  const m: WebhookMessage = { attempt: 1, ...body };
  if (m.notBefore && m.notBefore > now) return requeue(env, m, Math.ceil((m.notBefore - now) / 1000), now);
  const partner = await partnerById(env, m.workerOrigin, m.partnerId);
  let target = webhookTarget(env, partner, m.workerOrigin);
  let send: ((url: string, init: RequestInit) => Promise<Response>) | undefined;
  // A partner with no endpoint of its own: the route the deployment plugged in, if any.
  const route = !target && partner ? await pluggedWebhookRoute(env, partner, m.workerOrigin) : undefined;
  if (route) ({ target, send } = route);
  const store = verifications(env);
  if (!target) {
    log('info', 'webhook_skipped_unconfigured', m);
    return store.webhookOutcome(m.verificationId, 'none', m.attempt - 1);
  }
  // Redacted since it was queued (`POST /v1/…/redact`): it goes without customerRef and entityId.
  const event = (await store.read(m.verificationId))?.redactedAt !== undefined ? { ...m, body: redactedBody(m.body) } : m;
  const started = Date.now();
  const result = await deliverOnce(target, event, config(env).outcomes.webhookTimeoutMs, now, send);
  const ms = Date.now() - started;
  // The operator's webhook.attempt: status or failure kind, time, attempt number, what came of it.
  const counted = (outcome: WebhookResult) =>
    emit(env, undefined, [
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
  if (result.kind === 'delivered' || result.kind === 'gone') {
    if (result.kind === 'gone') log('info', 'webhook_gone', m, { status: 410 });
    await counted(result.kind);
    return store.webhookOutcome(m.verificationId, result.kind, m.attempt, result.status);
  }
  const status = result.status;
  log('error', 'webhook_failed', m, { status: status ?? null });
  if (m.attempt >= config(env).outcomes.webhookMaxAttempts) {
    await counted('dead');
    await bindingIfAny(env, 'WEBHOOK_DLQ')?.send({ ...m, notBefore: undefined } satisfies WebhookMessage, { contentType: 'json' });
    return;
  }
  await counted('retry');
  const schedule = config(env).outcomes.webhookRetrySchedule;
  const wait = result.retryAfterSeconds ?? schedule[Math.min(m.attempt - 1, schedule.length - 1)]!;
  await store.webhookOutcome(m.verificationId, 'queued', m.attempt, status);
  await requeue(env, { ...m, attempt: m.attempt + 1 }, wait, now);
}

/** A dead letter: recorded on the verification and logged. */
export async function handleDeadLetter(env: Env, m: WebhookMessage): Promise<void> {
  log('error', 'webhook_dead_letter', m);
  await verifications(env).webhookOutcome(m.verificationId, 'dead', m.attempt);
}

/** The queue consumer (`queue()` of the entry): the webhook queue and its dead-letter queue. */
export async function consumeWebhookBatch(batch: MessageBatch<WebhookMessage>, env: Env): Promise<void> {
  const dead = batch.queue.endsWith('-dlq');
  for (const message of batch.messages) {
    try {
      if (dead) await handleDeadLetter(env, message.body);
      else await handleWebhookMessage(env, message.body);
      message.ack();
    } catch (err) {
      console.error(
        JSON.stringify({
          level: 'error',
          event: 'webhook_consumer_error',
          // A malformed message (not ours) may have no body.
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
          verificationId: message.body?.verificationId,
          error: errorName(err),
        }),
      );
      message.retry({ delaySeconds: 30 });
    }
  }
}
