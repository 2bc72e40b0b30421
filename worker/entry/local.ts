/**
 * The local stack's Worker entry (wrangler.toml's top level: `npm start`,
 * `wrangler dev`, the tests, a deliberate DEMO=on deployment): the app of
 * entry/local-app.ts, the webhook queue consumer, and the Durable Object
 * classes the top-level config binds, the sandbox's and the demo's included.
 */
import type { Env } from '../lib/env';
import { consumeWebhookBatch, type WebhookMessage } from '../verifications/webhook-delivery';
import { consumeOpsBatch, EVENTS_QUEUE_NAME, scheduledCleanUp } from '../ops/consumer';
import { app } from './local-app';

export { DevSecrets } from '../demo/dev-secrets-durable';
export { IdempotencyStore } from '../lib/idempotency-durable';
export { LimitsStore } from '../lib/allowances-durable';
export { VerificationStore } from '../verifications/verification-durable';
export { SandboxStore } from '../../sandbox/store-durable';

export default {
  fetch: app.fetch,
  // Two queues arrive here: the operator's events (rollups in D1) and webhook deliveries (and their dead letters).
  queue: (batch: MessageBatch<WebhookMessage>, env: Env) =>
    batch.queue.startsWith(EVENTS_QUEUE_NAME) ? consumeOpsBatch(batch, env) : consumeWebhookBatch(batch, env),
  // The Cron Trigger: the operator console's retention.
  scheduled: (controller: ScheduledController, env: Env) => scheduledCleanUp(env, controller.scheduledTime),
} satisfies ExportedHandler<Env, WebhookMessage>;
