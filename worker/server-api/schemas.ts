/**
 * The shapes of `/v1`, in zod/mini like the rest of the worker: what the
 * routes validate (bodies, queries, headers) and what they answer (and the
 * webhook bodies), each with the words the OpenAPI document shows
 * (`globalRegistry` metadata, zod's own). `routes.ts` puts them into the
 * route definitions; `openapi.ts` turns those into the document.
 */
import * as z from 'zod/mini';
import { REASONS, VENDOR_IDS } from '../vendors/adapter';
import { DEPRECATED_OPEN_STATUS } from '../vendors/result';
import { PERSON_FIELDS } from '../vendors/person';

/** Control characters and bidi overrides have no place in a reference (as in the browser API). */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export const VERIFICATION_STATUSES = ['created', 'open', 'requires_input', 'final', 'expired', 'canceled'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** The OpenAPI document's words about a schema (`.meta()` of classic zod). */
const meta = <S extends z.ZodMiniType>(schema: S, data: z.core.GlobalMeta): S => {
  z.globalRegistry.add(schema, data);
  return schema;
};

export const CreateVerificationRequest = meta(
  z.strictObject({
    customerRef: meta(
      z.string().check(
        z.trim(),
        z.minLength(1, 'is required'),
        z.maxLength(100, 'must be at most 100 characters'),
        z.refine((s) => !UNSAFE_TEXT.test(s), 'contains characters that are not allowed'),
      ),
      { description: "Your own reference for the person's account (1–100 characters). Comes back in the result token and webhooks." },
    ),
    returnUrl: meta(z.optional(z.string().check(z.maxLength(2048, 'is too long'))), {
      description: 'Where the hosted flow returns the person: a page on one of your origins. Default: the page that embeds the widget.',
    }),
    sms: meta(z.optional(z.boolean()), {
      description: 'May the person choose to get the link by text message (the widget offers "Text me a link").',
    }),
    expiresInSeconds: meta(
      z.optional(
        z.number().check(z.int('must be a whole number'), z.gte(300, 'must be at least 300'), z.lte(86_400, 'must be at most 86400')),
      ),
      { description: 'How long the client secret can start or resume the verification: 300–86400 seconds, default 86400.' },
    ),
    entityId: meta(z.optional(z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(128, 'must be at most 128 characters'))), {
      description: "A returning person's entity, from one of your verifications: the link updates it. Any other is a 404.",
    }),
    maxAttempts: meta(
      z.optional(z.number().check(z.int('must be a whole number'), z.gte(1, 'must be at least 1'), z.lte(3, 'must be at most 3'))),
      {
        description:
          'Attempts the person gets (1–3, default 2): after an attempt a person may fix by trying again (a mistyped detail, a blurred photo), with attempts left, the verification is `requires_input`.',
      },
    ),
  }),
  { id: 'CreateVerificationRequest' },
);
export type CreateVerificationRequest = z.input<typeof CreateVerificationRequest>;

export const GetQuery = z.strictObject({
  include: meta(z.optional(z.enum(['person'], { error: 'must be person' })), {
    description: '`person`: add the verified person (only once final).',
  }),
});

export const ListQuery = z.strictObject({
  customerRef: z.optional(z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(100, 'must be at most 100 characters'))),
  customerRefSource: meta(z.optional(z.enum(['server', 'page', 'any'], { error: 'must be one of server, page, any' })), {
    description:
      'Whose `customerRef` to list: `server` (set by your server through this API), `page` (set on the page, where any script can claim your origin) or `any`. Default: `server` when `customerRef` is given, else `any`.',
  }),
  status: z.optional(z.enum(VERIFICATION_STATUSES, { error: `must be one of ${VERIFICATION_STATUSES.join(', ')}` })),
  limit: meta(
    z.optional(
      z.coerce
        .number({ error: 'must be a whole number from 1 to 100' })
        .check(z.int('must be a whole number from 1 to 100'), z.gte(1, 'must be at least 1'), z.lte(100, 'must be at most 100')),
    ),
    { description: '1–100, default 20.' },
  ),
  cursor: meta(z.optional(z.string().check(z.maxLength(64, 'is not a cursor'))), {
    description: '`nextCursor` of the previous page.',
  }),
});

export const IdempotencyHeader = z.object({
  'Idempotency-Key': meta(z.optional(z.string().check(z.regex(/^[A-Za-z0-9_\-:.]{8,128}$/, 'must be 8 to 128 letters, digits or -_:.'))), {
    description: 'A repeat with the same key (within 10 minutes) answers the first answer again, without making a second verification.',
  }),
});

// ── answers ───────────────────────────────────────────────────────────────

const isoTime = (description: string) => meta(z.string(), { description: `${description} (ISO 8601, UTC)`, format: 'date-time' });
const int = () => z.number().check(z.int());
const livemode = () => meta(z.boolean(), { description: '`false` while the sandbox is the vendor.' });

export const ErrorObject = meta(
  z.object({
    errorCode: meta(z.string(), { description: 'A stable code, e.g. `UNAUTHENTICATED`, `NOT_FOUND`, `VALIDATION_FAILED`.' }),
    errorMsg: meta(z.string(), { description: 'What went wrong, in English, for a developer.' }),
    issues: meta(
      z.array(
        z.object({
          issue: z.string(),
          issueLocation: meta(z.string(), { description: 'The field path (`customerRef`, `limit`, `Idempotency-Key`), never its value.' }),
        }),
      ),
      { description: 'One entry per bad field.' },
    ),
    requestId: meta(z.string(), { description: 'Quote it when you ask for support (also in the `X-Request-Id` header).' }),
  }),
  { id: 'ErrorObject', description: 'Every error answer of the worker.' },
);

export const CreatedVerification = meta(
  z.object({
    verificationId: meta(z.string(), { description: '`vrf_` + a ULID.', examples: ['vrf_01JD0000000000000000000000'] }),
    clientSecret: meta(z.string(), {
      description:
        'Give it to the page (`<kyc-onboard client-secret>`); never put it in a URL, a log line or storage beyond `sessionStorage`.',
    }),
    status: z.literal('created'),
    expiresAt: isoTime('Until when the client secret can start the verification'),
    livemode: livemode(),
  }),
  { id: 'CreatedVerification' },
);
export type CreatedVerification = z.output<typeof CreatedVerification>;

export const WEBHOOK_STATES = ['none', 'queued', 'failed', 'delivered', 'gone', 'dead'] as const;

export const WebhookStatus = meta(
  z.object({
    state: meta(z.enum(WEBHOOK_STATES), {
      description:
        '`none`: no event yet (or no endpoint); `queued`: handed to the queue, being delivered; `failed`: the last attempt failed and the next is scheduled; `delivered`: a 2xx; `gone`: the endpoint answered 410; `dead`: every attempt failed.',
    }),
    attempts: int(),
    lastAttemptAt: z.optional(isoTime('The last attempt')),
    lastResponseStatus: meta(z.optional(int()), { description: "The HTTP status of your endpoint's last answer." }),
    undelivered: meta(
      z.array(
        z.object({
          webhookId: z.string(),
          type: z.string(),
          sequence: meta(int(), { description: '`data.sequence` of the event: 1, 2, 3… per verification.' }),
          state: z.enum(['queued', 'failed', 'dead']),
          attempts: int(),
          lastResponseStatus: z.optional(int()),
          lastAttemptAt: z.optional(isoTime('The last attempt')),
          nextAttemptAt: z.optional(isoTime('When the next attempt is due')),
        }),
      ),
      { description: 'Every event of this verification not delivered yet (queued, failed or dead), oldest first.' },
    ),
  }),
  { id: 'WebhookStatus' },
);

const text = () => z.optional(z.string());

/** Each of `keys` an optional string. */
const texts = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, text()])) as unknown as { [P in K]: ReturnType<typeof text> };

export const Person = meta(
  z.strictObject({
    entityId: meta(z.string(), { description: "The vendor's entity id (the same as the verification's `entityId`)." }),
    name: z.optional(z.strictObject({ ...texts(PERSON_FIELDS.name), familyName: z.string() })),
    dateOfBirth: z.optional(
      z.strictObject({ ...texts(PERSON_FIELDS.dateOfBirth), dateOfBirth: meta(text(), { description: 'YYYY-MM-DD' }) }),
    ),
    addresses: z.optional(z.array(z.strictObject(texts(PERSON_FIELDS.address)))),
    identityDocs: meta(z.optional(z.array(z.strictObject(texts(PERSON_FIELDS.identityDoc)))), {
      description: "Each identity document's type, country and number only: no scans, no other data read from it.",
    }),
  }),
  {
    id: 'Person',
    description:
      "The verified person as the vendor recorded it, an allow-list: name, date of birth, addresses, and each identity document's type, country and number. Never images, scans, data read from a document, flags or any other field the vendor returns. Fetched from the vendor when you ask: the worker never stores or logs it.",
  },
);
export type Person = z.output<typeof Person>;

/** The outcome in our words (docs/vendors.md): in `/v1` and every webhook event's `data`. */
export const VendorResultSchema = z.object({
  outcome: z.enum(['verified', 'failed', 'inconclusive']),
  reason: z.optional(z.enum(REASONS)),
  vendor: z.enum(VENDOR_IDS),
  vendorStatus: z.string(),
});

const verificationFields = {
  verificationId: z.string(),
  status: meta(z.enum(VERIFICATION_STATUSES), {
    description:
      '`created`: made by your server, no link yet; `open`: the person has a link; `requires_input`: the last attempt ended in a way the person may fix, and they may try again; `final`: a final `checkStatus`; `expired`: no final status in time; `canceled`: canceled by your server.',
  }),
  attempts: meta(z.optional(z.array(z.object({ checkStatus: z.string(), endedAt: isoTime('The attempt ended') }))), {
    description: 'Attempts that ended, oldest first (the last one decides a `final` status).',
  }),
  checkStatus: meta(z.optional(z.string()), {
    description: `\`${DEPRECATED_OPEN_STATUS}\`, or the final word of an \`idv\` verification's vendor. Deprecated: read \`result\`.`,
    deprecated: true,
  }),
  result: meta(z.optional(VendorResultSchema), {
    description:
      "Once final: the outcome in our words, whichever vendor (docs/vendors.md). `reason` is ours; `vendorStatus` is the vendor's own word, raw.",
  }),
  customerRef: z.optional(z.string()),
  customerRefSource: meta(z.enum(['server', 'page']), {
    description: '`server`: set by `POST /v1/verifications`; `page`: set by a page (`customer-ref`).',
  }),
  entityId: meta(z.optional(z.string()), { description: "The vendor's entity id, once a link was made." }),
  vendor: meta(z.optional(z.enum(VENDOR_IDS)), {
    description: 'The vendor it is made with, once a link was made: recorded at the first link, it never changes (docs/vendors.md).',
  }),
  partnerOrigin: meta(z.optional(z.string()), { description: "The page origin that made the link (the result token's `aud`)." }),
  createdAt: isoTime('Created'),
  linkCreatedAt: z.optional(isoTime('The first link was made')),
  finalAt: z.optional(isoTime('The status became final')),
  canceledAt: z.optional(isoTime('Canceled')),
  redactedAt: z.optional(isoTime('Redacted')),
  expiresAt: isoTime('It stops (no final status by then: `expired`)'),
  livemode: livemode(),
};

export const VerificationSummary = meta(z.object(verificationFields), {
  id: 'VerificationSummary',
  description: 'A verification as the list shows it.',
});
export type VerificationSummary = z.output<typeof VerificationSummary>;

export const Verification = meta(
  z.object({
    ...verificationFields,
    resultToken: meta(z.optional(z.string()), { description: 'Once final: the signed result token (as `kyc-complete` carries it).' }),
    clientSecret: meta(z.optional(z.string()), {
      description:
        'While the person can still work on it (`created`, `open`, `requires_input`): the same client secret as at creation, to give the page again (resume, no second verification). Never in a URL, a log line or storage beyond `sessionStorage`.',
    }),
    webhook: WebhookStatus,
    person: meta(z.optional(Person), { description: 'With `?include=person`, once final.' }),
  }),
  { id: 'Verification' },
);
export type Verification = z.output<typeof Verification>;

export const VerificationList = meta(
  z.object({
    data: meta(z.array(VerificationSummary), { description: 'Newest first.' }),
    nextCursor: meta(z.optional(z.string()), { description: 'Pass as `cursor` for the next page; absent on the last page.' }),
  }),
  { id: 'VerificationList' },
);

export const RedeliveredWebhook = meta(
  z.object({
    verificationId: z.string(),
    type: z.string(),
    webhookId: meta(z.string(), { description: 'The same `webhook-id` as before.' }),
    state: z.literal('queued'),
  }),
  { id: 'RedeliveredWebhook' },
);

/** The path parameter of every route about one verification. */
export const VerificationIdParam = z.object({
  verificationId: meta(z.string(), {
    description: '`vrf_` + a ULID; unknown or malformed ids are 404.',
  }),
});

// ── entity search ─────────────────────────────────────────────────────────

const criterion = (max = 100) => z.optional(z.string().check(z.maxLength(max, `must be at most ${max} characters`)));
const ADDRESS_FIELDS = [
  'addressType',
  'buildingName',
  'unitNumber',
  'streetNumber',
  'streetName',
  'streetType',
  'suburb',
  'town',
  'region',
  'state',
  'postalCode',
  'country',
  'longForm',
] as const;

export const EntitySearchRequest = meta(
  z.strictObject({
    entityType: z.optional(z.enum(['INDIVIDUAL', 'TRUST', 'ORGANISATION'], { error: 'must be INDIVIDUAL, TRUST or ORGANISATION' })),
    name: z.optional(z.strictObject({ familyName: criterion(), givenName: criterion(), middleName: criterion() })),
    dateOfBirth: z.optional(
      z.strictObject({
        dateOfBirth: meta(z.optional(z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD'))), {
          description: 'YYYY-MM-DD',
        }),
        yearOfBirth: z.optional(z.string().check(z.regex(/^\d{4}$/, 'must be four digits'))),
      }),
    ),
    gender: z.optional(z.enum(['U', 'F', 'M', 'O'], { error: 'must be U, F, M or O' })),
    addresses: z.optional(
      z
        .array(
          z.strictObject(
            Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, criterion(200)])) as Record<
              (typeof ADDRESS_FIELDS)[number],
              ReturnType<typeof criterion>
            >,
          ),
        )
        .check(z.maxLength(5, 'at most 5')),
    ),
    identityDocs: z.optional(
      z.array(z.strictObject({ idType: criterion(50), country: criterion(3), idNumber: criterion() })).check(z.maxLength(5, 'at most 5')),
    ),
  }),
  {
    id: 'EntitySearchRequest',
    description: 'Minimum: `name.familyName` with `name.givenName` or one document (`idType`, `country`, `idNumber`).',
  },
);
export type EntitySearchRequest = z.output<typeof EntitySearchRequest>;

export const EntitySearchQuery = z.strictObject({
  onlyEntityIds: meta(z.optional(z.enum(['true', 'false'], { error: 'must be true or false' })), {
    description: 'Ids and confidence only.',
  }),
  resultLimit: meta(
    z.optional(
      z.coerce
        .number({ error: 'must be a whole number from 1 to 50' })
        .check(z.int('must be a whole number from 1 to 50'), z.gte(1, 'must be at least 1'), z.lte(50, 'must be at most 50')),
    ),
    { description: '1–50; the vendor may cap it lower.' },
  ),
});

export const EntitySearchResults = meta(
  z.object({
    requestId: z.string(),
    totalEntitiesMatched: z.optional(int()),
    results: meta(
      z.array(
        z.object({
          entityId: z.string(),
          confidence: z.optional(z.number()),
          entity: meta(z.optional(Person), { description: 'Only for an entity one of your verifications holds.' }),
        }),
      ),
      { description: 'Best match first.' },
    ),
  }),
  { id: 'EntitySearchResults' },
);
export type EntitySearchResults = z.output<typeof EntitySearchResults>;

const capability = (description: string) => meta(z.boolean(), { description });

export const Capabilities = meta(
  z.object({
    vendors: meta(
      z.array(
        z.object({
          vendor: z.enum(VENDOR_IDS),
          livemode: meta(z.boolean(), { description: 'Whether its outcomes are real (a live key) or tests (a double, a test key).' }),
          capabilities: z.object({
            sms: capability('The vendor texts its own link (`sendSMS`).'),
            entitySearch: capability('`POST /v1/entities/search`.'),
            entityReuse: capability('`entityId` on create: a returning person’s entity updated, not made again.'),
            cancelAtVendor: capability('A cancel also stops the attempt at the vendor.'),
            redactAtVendor: capability('A redaction also asks the vendor to erase what it holds.'),
            vendorWebhooks: capability('The vendor signs events the worker takes in (it asks sooner).'),
            person: capability('`include=person` on a final verification.'),
          }),
        }),
      ),
      { description: 'Your vendors in priority order: a new verification is made with the first (failover: the next, before start only).' },
    ),
    failover: meta(z.enum(['off', 'before_start']), {
      description: '`before_start`: a link the first vendor cannot make (a vendor fault) is made by the next.',
    }),
  }),
  { id: 'Capabilities' },
);
export type Capabilities = z.output<typeof Capabilities>;
