/**
 * The local stack's Worker entry (wrangler.toml's top level: `npm start`,
 * `wrangler dev`, the tests, a deliberate DEMO=on deployment): the app of
 * entry/local-app.ts, the webhook queue consumer, and the Durable Object
 * classes the top-level config binds, the sandbox's and the demo's included.
 * The app, the verifications' object and the queue consumer get the same
 * plug-ins (`localPlugins`).
 */
import type { Env } from '../lib/env';
import { portsFor } from '../ports-for';
import { consumeWebhookBatch, type WebhookMessage } from '../verifications/webhook-delivery';
import { VerificationObject as ProductVerificationObject } from '../verifications/verification-durable';
import { consumeOpsBatch, EVENTS_QUEUE_NAME, scheduledCleanUp } from '../ops/consumer';
import { app, localPlugins } from './local-app';

export { DevSecrets } from '../demo/dev-secrets-durable';
export { IdempotencyStore } from '../lib/idempotency-durable';
export { LimitsStore } from '../lib/allowances-durable';
export { SandboxStore } from '../../sandbox/store-durable';

const plugins = localPlugins();

/** The verification's object with the local stack's plug-ins: its alarm asks the sandbox in process. */
export class VerificationObject extends ProductVerificationObject {
  protected override plugins() {
    return plugins;
  }
}

export default {
  fetch: app.fetch,
  // Two queues arrive here: the operator's events (rollups in D1) and webhook deliveries (and their dead letters).
  queue: (batch: MessageBatch<WebhookMessage>, env: Env) =>
    batch.queue.startsWith(EVENTS_QUEUE_NAME) ? consumeOpsBatch(batch, env) : consumeWebhookBatch(batch, env, portsFor(env, plugins)),
  // The Cron Trigger: the operator console's retention.
  scheduled: (controller: ScheduledController, env: Env) => scheduledCleanUp(env, controller.scheduledTime),
} satisfies ExportedHandler<Env, WebhookMessage>;
