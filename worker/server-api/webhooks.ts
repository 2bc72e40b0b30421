/**
 * The webhook events a partner's endpoint receives, one schema each: the
 * OpenAPI document's `webhooks` (`openapi.ts`) and the test that every body
 * the worker sends matches its event's schema both read them. Signed as the
 * Standard Webhooks spec says (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`); nothing personal in a body.
 */
import * as z from 'zod/mini';
import { VendorResultSchema, VERIFICATION_STATUSES } from './schemas';
import { DEPRECATED_OPEN_STATUS } from '../vendors/result';

const meta = <S extends z.ZodMiniType>(schema: S, data: z.core.GlobalMeta): S => {
  z.globalRegistry.add(schema, data);
  return schema;
};

const time = (description: string) => meta(z.string(), { description: `${description} (ISO 8601, UTC).`, format: 'date-time' });

/**
 * What every event's `data` carries: the verification's whole public state
 * at the event (what `GET /v1/verifications/{verificationId}` showed then),
 * so a receiver keeps the event with the highest `sequence` and drops older ones.
 */
const common = {
  verificationId: meta(z.string(), { description: '`vrf_` + a ULID: match the event to the verification your server made.' }),
  entityId: meta(z.optional(z.string()), { description: "The vendor's entity id, once a link was made (gone after a redaction)." }),
  customerRef: meta(z.optional(z.string()), { description: 'Your reference, when one was set (gone after a redaction).' }),
  customerRefSource: meta(z.optional(z.enum(['server', 'page'])), {
    description:
      '`server`: your server set `customerRef` (`POST /v1/verifications`); `page`: a page did. Never credit an account because a page-set `customerRef` names it: match by `verificationId`.',
  }),
  partnerOrigin: meta(z.optional(z.string()), { description: 'The page origin that made the link.' }),
  livemode: meta(z.boolean(), { description: '`false` while the sandbox is the vendor: acknowledge it (2xx) all the same.' }),
  status: meta(z.enum(VERIFICATION_STATUSES), { description: "The verification's status at the event, as `GET /v1` shows it." }),
  checkStatus: meta(z.optional(z.string()), {
    description: `Once a link was made: \`${DEPRECATED_OPEN_STATUS}\`, or the vendor's final word. Deprecated: read \`result\`.`,
  }),
  result: meta(z.optional(VendorResultSchema), {
    description: 'Once final: the outcome in our words, whichever vendor (docs/vendors.md); `checkStatus` is deprecated.',
  }),
  attempts: meta(z.optional(z.array(z.object({ checkStatus: z.string(), endedAt: time('The attempt ended') }))), {
    description: 'Attempts that ended by the event, oldest first.',
  }),
  redacted: meta(z.boolean(), { description: 'Whether the verification had been redacted by the event.' }),
  createdAt: time('Created'),
  linkCreatedAt: z.optional(time('The first link was made')),
  finalAt: z.optional(time('The status became final')),
  canceledAt: z.optional(time('Canceled')),
  redactedAt: z.optional(time('Redacted')),
  expiresAt: time('It stops (no final status by then: `expired`)'),
  sequence: meta(z.number().check(z.int(), z.gte(1)), {
    description:
      '1, 2, 3… per verification, the same on every attempt of an event: drop a repeat by its `webhook-id`, and an event with a lower `sequence` than one you already recorded.',
  }),
};

const attempt = z.object({
  checkStatus: meta(z.string(), { description: "The vendor's word for how the attempt ended, raw." }),
});

function event<T extends string, D extends z.core.$ZodLooseShape>(type: T, id: string, description: string, data: D) {
  return meta(
    z.object({
      type: z.literal(type),
      timestamp: meta(z.string(), {
        description: 'When the event happened (ISO 8601, UTC); the same on every attempt.',
        format: 'date-time',
      }),
      data: z.object({ ...common, ...data }),
    }),
    { id, description },
  );
}

export const webhooks = [
  {
    type: 'verification.completed',
    operationId: 'verificationCompleted',
    summary: 'A final check status',
    description: 'The vendor gave a final `checkStatus`. Read the person with `GET /v1/verifications/{verificationId}?include=person`.',
    schema: event('verification.completed', 'VerificationCompletedEvent', 'The body of `verification.completed`.', {
      checkStatus: meta(z.string(), { description: "The vendor's final word, raw. Deprecated: read `result`." }),
    }),
  },
  {
    type: 'verification.expired',
    operationId: 'verificationExpired',
    summary: 'No final status in time',
    description: 'Polling ended without a final status.',
    schema: event('verification.expired', 'VerificationExpiredEvent', 'The body of `verification.expired`.', {
      reason: meta(z.enum(['not_finished', 'not_claimed', 'vendor_unavailable']), {
        description:
          '`not_finished`: the person did not finish; `not_claimed`: no link was ever made; `vendor_unavailable`: the vendor could not answer.',
      }),
    }),
  },
  {
    type: 'verification.canceled',
    operationId: 'verificationCanceled',
    summary: 'Canceled by your server',
    description: '`POST /v1/verifications/{verificationId}/cancel` (or a redaction of an open verification) ended it.',
    schema: event('verification.canceled', 'VerificationCanceledEvent', 'The body of `verification.canceled`.', {}),
  },
  {
    type: 'verification.requires_input',
    operationId: 'verificationRequiresInput',
    summary: 'An attempt failed; the person may try again',
    description:
      'An attempt ended in a way the person may fix and attempts remain: the page can resume the same verification with its client secret.',
    schema: event('verification.requires_input', 'VerificationRequiresInputEvent', 'The body of `verification.requires_input`.', {
      lastAttempt: meta(attempt, { description: 'How the attempt ended.' }),
    }),
  },
  {
    type: 'verification.redacted',
    operationId: 'verificationRedacted',
    summary: 'The verification was redacted',
    description:
      'The worker forgot `customerRef` and `entityId`: erase your copy too. It has its own `webhook-id`, so a receiver that saw the earlier events learns of it.',
    schema: event('verification.redacted', 'VerificationRedactedEvent', 'The body of `verification.redacted`.', {}),
  },
] as const;

export type WebhookType = (typeof webhooks)[number]['type'];
