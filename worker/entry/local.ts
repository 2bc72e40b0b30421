/**
 * The local stack's Worker entry (wrangler.toml's top level: `npm start`,
 * `wrangler dev`, the tests, a deliberate DEMO=on deployment): the app of
 * entry/local-app.ts, the webhook queue consumer, and the Durable Object
 * classes the top-level config binds, the sandbox's and the demo's included.
 */
import type { Env } from '../lib/env';
import { consumeWebhookBatch, type WebhookMessage } from '../verifications/webhook-delivery';
import { app } from './local-app';

export { DevSecrets } from '../demo/dev-secrets-durable';
export { IdempotencyStore } from '../lib/idempotency-durable';
export { VerificationStore } from '../verifications/verification-durable';
export { SandboxStore } from '../../sandbox/store-durable';

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<WebhookMessage>, env: Env) => consumeWebhookBatch(batch, env),
} satisfies ExportedHandler<Env, WebhookMessage>;
