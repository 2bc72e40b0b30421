/**
 * The webhook event a state change causes, built from the record as it is
 * at that change: its `data` is the verification's whole public state then
 * (`public-state.ts`), so a receiver that keeps the event with the highest
 * `data.sequence` (the outbox stamps it in) and drops older ones holds what
 * `GET /v1` showed at that moment. The outbox keeps the body it was given,
 * so every attempt sends the same bytes; only a redaction rewrites kept
 * bodies (the reference and the entity go).
 */
import { publicState } from './public-state';
import { checkStatusOf, expiredReason, stateAt } from './lifecycle';
import type { Verification, WebhookEvent, WebhookEventType } from './verification';

/** When the event of `type` happened. */
function eventAt(v: Verification, type: WebhookEventType): number {
  switch (type) {
    case 'verification.canceled':
      return stateAt(v, 'canceled')!;
    case 'verification.completed':
      return stateAt(v, 'final')!;
    case 'verification.expired':
      return stateAt(v, 'expired')!;
    case 'verification.requires_input':
      return v.state.name === 'requires_input' ? v.state.since : (v.attempts?.at(-1)?.endedAt ?? v.createdAt);
    case 'verification.redacted':
      return v.redactedAt!;
  }
}

/** The event of `type` for the record `v` (the record as the change that causes it left it). */
export function webhookEvent(v: Verification, type: WebhookEventType): WebhookEvent {
  const last = v.attempts?.at(-1);
  const data = {
    verificationId: v.id,
    ...(v.entityId !== undefined ? { entityId: v.entityId } : {}),
    ...publicState(v),
    ...(type === 'verification.completed' ? { checkStatus: checkStatusOf(v) } : {}),
    ...(type === 'verification.requires_input' && last ? { lastAttempt: { checkStatus: last.checkStatus } } : {}),
    ...(v.customerRef ? { customerRef: v.customerRef, customerRefSource: v.customerRefSource ?? 'page' } : {}),
    ...(v.partnerOrigin ? { partnerOrigin: v.partnerOrigin } : {}),
    redacted: v.redactedAt !== undefined,
    // Records made before livemode existed have none: they count as test-mode (false), never as live.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare
    livemode: v.livemode === true,
    ...(type === 'verification.expired' ? { reason: expiredReason(v) ?? 'not_finished' } : {}),
  };
  const suffix = type === 'verification.requires_input' ? `requires_input_${v.attempts?.length ?? 0}` : type.slice('verification.'.length);
  return {
    verificationId: v.id,
    type,
    id: `msg_${v.id.slice(4)}_${suffix}`,
    body: JSON.stringify({ type, timestamp: new Date(eventAt(v, type)).toISOString(), data }),
    partnerId: v.partnerId,
    workerOrigin: v.workerOrigin,
  };
}
