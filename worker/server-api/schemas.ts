/**
 * The partner's server API (`/v1`) in zod: what the routes answer and (through
 * `.meta()`, zod's own metadata) what the OpenAPI 3.1 document says about
 * them, and what they validate (`requests.ts`) as the generator reads it.
 * `routes.ts` puts these into the route table; `npm run openapi` generates
 * `openapi.json` from that table with @hono/zod-openapi, so the document and
 * the code cannot drift apart. Plain `zod` here: the generator is a build
 * tool, not part of the worker, and reads classic zod only.
 */
import * as z from 'zod';
import * as requests from './requests';

const { VERIFICATION_STATUSES } = requests;
export { VERIFICATION_STATUSES, type VerificationStatus } from './requests';

/** The classes a zod/mini schema of `requests.ts` has in classic zod, by its `def.type`. */
const CLASSIC: Record<string, new (def: never) => z.ZodType> = {
  string: z.ZodString,
  number: z.ZodNumber,
  boolean: z.ZodBoolean,
  enum: z.ZodEnum,
  literal: z.ZodLiteral,
  never: z.ZodNever,
  unknown: z.ZodUnknown,
  object: z.ZodObject,
  array: z.ZodArray,
  optional: z.ZodOptional,
  pipe: z.ZodPipe,
  transform: z.ZodTransform,
};

/**
 * The same schema in classic zod, for the generator: the same definition
 * (checks, messages, transforms: the very objects the worker validates with)
 * and the same metadata, in classic zod's classes. A kind of schema not
 * listed above fails here, so the document never quietly skips a rule.
 */
function classic(schema: z.core.$ZodType): z.ZodType {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const Class = CLASSIC[def.type];
  if (!Class) throw new Error(`requests.ts: no classic zod for a ${def.type} schema (add it to CLASSIC)`);
  const twin: Record<string, unknown> = { ...def };
  for (const key of ['innerType', 'in', 'out', 'element', 'catchall'] as const) {
    if (def[key]) twin[key] = classic(def[key] as z.core.$ZodType);
  }
  if (def.type === 'object') {
    const shape = def.shape as Record<string, z.core.$ZodType>;
    twin.shape = Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, classic(v)]));
  }
  const out = new Class(twin as never);
  const meta = z.globalRegistry.get(schema);
  return meta ? out.meta(meta) : out; // as classic zod's `.meta()` would have made it
}
const classicObject = (schema: z.core.$ZodObject) => classic(schema) as z.ZodObject;

// What the routes validate, as the generator reads it.
export const CreateVerificationRequest = classicObject(requests.CreateVerificationRequest);
export const GetQuery = classicObject(requests.GetQuery);
export const ListQuery = classicObject(requests.ListQuery);
export const IdempotencyHeader = classicObject(requests.IdempotencyHeader);

const isoTime = (description: string) => z.string().meta({ description: `${description} (ISO 8601, UTC)`, format: 'date-time' });

export const ErrorObject = z
  .object({
    errorCode: z.string().meta({ description: 'A stable code, e.g. `UNAUTHENTICATED`, `NOT_FOUND`, `VALIDATION_FAILED`.' }),
    errorMsg: z.string().meta({ description: 'What went wrong, in English, for a developer.' }),
    issues: z
      .array(
        z.object({
          issue: z.string(),
          issueLocation: z.string().meta({ description: 'The field path (`customerRef`, `limit`, `Idempotency-Key`), never its value.' }),
        }),
      )
      .meta({ description: 'One entry per bad field.' }),
    requestId: z.string().meta({ description: 'Quote it when you ask for support (also in the `X-Request-Id` header).' }),
  })
  .meta({ id: 'ErrorObject', description: 'Every error answer of the worker.' });

export const CreatedVerification = z
  .object({
    verificationId: z.string().meta({ description: '`vrf_` + a ULID.', example: 'vrf_01JD0000000000000000000000' }),
    clientSecret: z.string().meta({
      description:
        'Give it to the page (`<kyc-onboard client-secret>`); never put it in a URL, a log line or storage beyond `sessionStorage`.',
    }),
    status: z.literal('created'),
    expiresAt: isoTime('Until when the client secret can start the verification'),
    livemode: z.boolean().meta({ description: '`false` while the sandbox is the vendor.' }),
  })
  .meta({ id: 'CreatedVerification' });
export type CreatedVerification = z.output<typeof CreatedVerification>;

export const WEBHOOK_STATES = ['none', 'queued', 'failed', 'delivered', 'gone', 'dead'] as const;

export const WebhookStatus = z
  .object({
    state: z.enum(WEBHOOK_STATES).meta({
      description:
        '`none`: no event yet (or no endpoint); `queued`: handed to the queue, being delivered; `failed`: the last attempt failed and the next is scheduled; `delivered`: a 2xx; `gone`: the endpoint answered 410; `dead`: every attempt failed.',
    }),
    attempts: z.number().int(),
    lastAttemptAt: isoTime('The last attempt').optional(),
    lastResponseStatus: z.number().int().optional().meta({ description: "The HTTP status of your endpoint's last answer." }),
    undelivered: z
      .array(
        z.object({
          webhookId: z.string(),
          type: z.string(),
          sequence: z.number().int().meta({ description: '`data.sequence` of the event: 1, 2, 3… per verification.' }),
          state: z.enum(['queued', 'failed', 'dead']),
          attempts: z.number().int(),
          lastResponseStatus: z.number().int().optional(),
          lastAttemptAt: isoTime('The last attempt').optional(),
          nextAttemptAt: isoTime('When the next attempt is due').optional(),
        }),
      )
      .meta({ description: 'Every event of this verification not delivered yet (queued, failed or dead), oldest first.' }),
  })
  .meta({ id: 'WebhookStatus' });

const KeyValuePair = z.object({ kvpKey: z.string().optional(), kvpType: z.string().optional(), kvpValue: z.string().optional() }).loose();

export const Person = z
  .object({
    entityId: z.string().meta({ description: "The vendor's entity id (the same as the verification's `entityId`)." }),
    entityType: z.string().optional(),
    name: z
      .object({
        familyName: z.string(),
        givenName: z.string().optional(),
        middleName: z.string().optional(),
        honourific: z.string().optional(),
        displayName: z.string().optional(),
      })
      .loose()
      .optional(),
    dateOfBirth: z
      .object({
        dateOfBirth: z.string().optional().meta({ description: 'YYYY-MM-DD' }),
        yearOfBirth: z.string().optional(),
        country: z.string().optional(),
        locality: z.string().optional(),
        unstructuredDateOfBirth: z.string().optional(),
      })
      .loose()
      .optional(),
    gender: z.string().optional(),
    addresses: z.array(z.object({ country: z.string() }).loose()).optional(),
    identityDocs: z
      .array(
        z
          .object({
            documentId: z.string().optional(),
            idType: z.string(),
            country: z.string(),
            docScan: z
              .array(z.object({ scanDocId: z.string().optional(), scanMIME: z.string().optional() }).loose())
              .optional()
              .meta({ description: 'Scan metadata only: `scanData` is never included.' }),
            extraData: z.array(KeyValuePair).optional(),
          })
          .loose(),
      )
      .optional()
      .meta({ description: 'Identity documents, without scan data.' }),
  })
  .loose()
  .meta({
    id: 'Person',
    description:
      "The vendor's entity for this verification as its result operation returns it (the vendor's field names), fetched when you ask: the worker never stores or logs it.",
  });
export type Person = z.output<typeof Person>;

const verificationFields = {
  verificationId: z.string(),
  status: z.enum(VERIFICATION_STATUSES).meta({
    description:
      '`created`: made by your server, no link yet; `open`: the person has a link; `requires_input`: the last attempt ended `NO_MATCH` or `UNPROCESSABLE` and the person may try again; `final`: a final `checkStatus`; `expired`: no final status in time; `canceled`: canceled by your server.',
  }),
  attempts: z
    .array(z.object({ checkStatus: z.string(), endedAt: isoTime('The attempt ended') }))
    .optional()
    .meta({ description: 'Attempts that ended, oldest first (the last one decides a `final` status).' }),
  checkStatus: z.string().optional().meta({ description: '`CHECKING`, or a final check status (`CHECKED_SUCCESS_CLEAR`, …).' }),
  customerRef: z.string().optional(),
  customerRefSource: z
    .enum(['server', 'page'])
    .meta({ description: '`server`: set by `POST /v1/verifications`; `page`: set by a page (`customer-ref`).' }),
  entityId: z.string().optional().meta({ description: "The vendor's entity id, once a link was made." }),
  partnerOrigin: z.string().optional().meta({ description: "The page origin that made the link (the result token's `aud`)." }),
  createdAt: isoTime('Created'),
  linkCreatedAt: isoTime('The first link was made').optional(),
  finalAt: isoTime('The status became final').optional(),
  canceledAt: isoTime('Canceled').optional(),
  redactedAt: isoTime('Redacted').optional(),
  expiresAt: isoTime('It stops (no final status by then: `expired`)'),
  livemode: z.boolean().meta({ description: '`false` while the sandbox is the vendor.' }),
};

export const VerificationSummary = z
  .object(verificationFields)
  .meta({ id: 'VerificationSummary', description: 'A verification as the list shows it.' });
export type VerificationSummary = z.output<typeof VerificationSummary>;

export const Verification = z
  .object({
    ...verificationFields,
    resultToken: z.string().optional().meta({ description: 'Once final: the signed result token (as `kyc-complete` carries it).' }),
    webhook: WebhookStatus,
    person: Person.optional().meta({ description: 'With `?include=person`, once final.' }),
  })
  .meta({ id: 'Verification' });
export type Verification = z.output<typeof Verification>;

export const VerificationList = z
  .object({
    data: z.array(VerificationSummary).meta({ description: 'Newest first.' }),
    nextCursor: z.string().optional().meta({ description: 'Pass as `cursor` for the next page; absent on the last page.' }),
  })
  .meta({ id: 'VerificationList' });

export const RedeliveredWebhook = z
  .object({
    verificationId: z.string(),
    type: z.string(),
    webhookId: z.string().meta({ description: 'The same `webhook-id` as before.' }),
    state: z.literal('queued'),
  })
  .meta({ id: 'RedeliveredWebhook' });

// ── parameters ────────────────────────────────────────────────────────────

export const VerificationIdParam = z.object({
  verificationId: z
    .string()
    .meta({ param: { name: 'verificationId', in: 'path' }, description: '`vrf_` + a ULID; unknown or malformed ids are 404.' }),
});
