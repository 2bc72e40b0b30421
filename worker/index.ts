/** The Worker entry: the app, the webhook queue consumer, and the Durable Object classes wrangler.toml binds. */
import app from './app';
import type { Env } from './env';
import { consumeWebhookBatch, type WebhookMessage } from './outcomes/webhook-delivery';
import { consumeOpsBatch, EVENTS_QUEUE_NAME, scheduledCleanUp } from './ops/consumer';

export { DevSecrets } from './dev-secrets-durable';
export { IdempotencyStore } from './idempotency-durable';
export { VerificationStore } from './outcomes/verification-durable';
export { SandboxStore } from './sandbox/store-durable';

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<WebhookMessage>, env: Env) =>
    batch.queue.startsWith(EVENTS_QUEUE_NAME) ? consumeOpsBatch(batch, env) : consumeWebhookBatch(batch, env),
  scheduled: (controller: ScheduledController, env: Env) => scheduledCleanUp(env, controller.scheduledTime),
} satisfies ExportedHandler<Env, WebhookMessage>;
