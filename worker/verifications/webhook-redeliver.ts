/**
 * Sends a verification's webhook event again: the last event it caused (its
 * end, a `requires_input`, or after a redaction `verification.redacted`), as
 * the outbox kept it when it happened (webhook-event.ts), with the same
 * `webhook-id`, as a fresh delivery through the webhook queue (attempt 1,
 * with the retry schedule behind it; timestamp and signature made afresh by
 * the delivery). The operator console's "Redeliver" (`/ops`, `npm run ops --
 * redeliver`) and the partner's `POST /v1/verifications/{id}/webhook/redeliver`
 * share the mechanism: the verification object's `redeliver()`.
 */
import { bindingIfAny, type Env } from '../lib/env';
import type { WebhookEvent } from './verification';
import type { Verifications } from '../ports';
import { log } from '../lib/log';

export type Redelivery =
  | { kind: 'queued'; verificationId: string; webhookId: string; type: WebhookEvent['type'] }
  /** Unknown, forgotten (kept 7 days after it ended), or another partner's. */
  | { kind: 'not-found' }
  /** Still open: there is no event to send yet. */
  | { kind: 'not-ended' }
  /** The worker has no webhook queue (binding missing). */
  | { kind: 'unavailable' };

export async function redeliverWebhook(
  env: Env,
  store: Verifications,
  verificationId: string,
  options: { partnerId?: string } = {},
): Promise<Redelivery> {
  const v = await store.execute(verificationId, { type: 'read' });
  if (!v || (options.partnerId !== undefined && v.partnerId !== options.partnerId)) return { kind: 'not-found' };
  if (!bindingIfAny(env, 'WEBHOOK_QUEUE')) return { kind: 'unavailable' };
  // In the verification's own object (VerificationLogic.redeliver): the record marked queued and the event enqueued together.
  const event = await store.execute(v.id, { type: 'redeliver' });
  if (!event) return { kind: 'not-ended' };
  log.info('webhook_redelivery_queued', { verificationId: v.id, type: event.type });
  return { kind: 'queued', verificationId: v.id, webhookId: event.id, type: event.type };
}
