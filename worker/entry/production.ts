/**
 * The production Worker entry (`wrangler deploy --env production`): the
 * product alone. It imports no sandbox and no demo piece, so its bundle
 * holds none; with KYC_BASE_URL unset it fails closed (app.ts's
 * configuration guard) instead of falling back to a vendor it does not have.
 * It plugs in nothing: its ports are the stores of its bindings alone.
 */
import { createApp } from '../app';
import type { Env } from '../lib/env';
import { portsFor } from '../ports-for';
import { consumeWebhookBatch, type WebhookMessage } from '../verifications/webhook-delivery';
import { consumeOpsBatch, EVENTS_QUEUE_NAME, scheduledCleanUp } from '../ops/consumer';

export { IdempotencyStore } from '../lib/idempotency-durable';
export { LimitsStore } from '../lib/allowances-durable';
export { VerificationObject } from '../verifications/verification-durable';

const app = createApp();

export default {
  fetch: app.fetch,
  // Two queues arrive here: the operator's events (rollups in D1) and webhook deliveries (and their dead letters).
  queue: (batch: MessageBatch<WebhookMessage>, env: Env) =>
    batch.queue.startsWith(EVENTS_QUEUE_NAME) ? consumeOpsBatch(batch, env) : consumeWebhookBatch(batch, env, portsFor(env)),
  // The Cron Trigger: the operator console's retention.
  scheduled: (controller: ScheduledController, env: Env) => scheduledCleanUp(env, controller.scheduledTime),
} satisfies ExportedHandler<Env, WebhookMessage>;
