/**
 * The production Worker entry (`wrangler deploy --env production`): the
 * product alone. It imports no sandbox and no demo piece, so its bundle
 * holds none; with KYC_BASE_URL unset it fails closed (app.ts's
 * configuration guard) instead of falling back to a vendor it does not have.
 */
import { createApp } from '../app';
import type { Env } from '../lib/env';
import { consumeWebhookBatch, type WebhookMessage } from '../verifications/webhook-delivery';

export { IdempotencyStore } from '../lib/idempotency-durable';
export { VerificationStore } from '../verifications/verification-durable';

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch: MessageBatch<WebhookMessage>, env: Env) => consumeWebhookBatch(batch, env),
} satisfies ExportedHandler<Env, WebhookMessage>;
