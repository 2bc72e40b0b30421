/**
 * What `/v1` validates (`app.ts`): the request body, query and header
 * schemas, in zod/mini like the rest of the worker, with the metadata
 * (`globalRegistry`, zod's own) the OpenAPI document takes from them. Apart
 * from `schemas.ts` (what the routes answer, and these as the document's
 * generator reads them) and `routes.ts` (the route table), which only `npm
 * run openapi` needs, so the worker's bundle holds neither.
 */
import * as z from 'zod/mini';

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
    maxAttempts: meta(
      z.optional(z.number().check(z.int('must be a whole number'), z.gte(1, 'must be at least 1'), z.lte(3, 'must be at most 3'))),
      {
        description:
          'Attempts the person gets (1–3, default 2): after a `NO_MATCH` or `UNPROCESSABLE` with attempts left the verification is `requires_input`.',
      },
    ),
  }),
  { id: 'CreateVerificationRequest' },
);
export type CreateVerificationRequest = z.input<typeof CreateVerificationRequest>;

export const GetQuery = z.strictObject({
  include: meta(z.optional(z.enum(['person'], { error: 'must be person' })), {
    param: { name: 'include', in: 'query' },
    description: '`person`: add the verified person (only once final).',
  }),
});

export const ListQuery = z.strictObject({
  customerRef: meta(z.optional(z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(100, 'must be at most 100 characters'))), {
    param: { name: 'customerRef', in: 'query' },
  }),
  status: meta(z.optional(z.enum(VERIFICATION_STATUSES, { error: `must be one of ${VERIFICATION_STATUSES.join(', ')}` })), {
    param: { name: 'status', in: 'query' },
  }),
  limit: meta(
    z.optional(
      z.pipe(
        z.pipe(z.string().check(z.regex(/^\d{1,3}$/, 'must be a whole number from 1 to 100')), z.transform(Number)),
        z.number().check(z.gte(1, 'must be at least 1'), z.lte(100, 'must be at most 100')),
      ),
    ),
    { param: { name: 'limit', in: 'query' }, description: '1–100, default 20.' },
  ),
  cursor: meta(z.optional(z.string().check(z.maxLength(64, 'is not a cursor'))), {
    param: { name: 'cursor', in: 'query' },
    description: '`nextCursor` of the previous page.',
  }),
});

export const IdempotencyHeader = z.object({
  'Idempotency-Key': meta(z.optional(z.string().check(z.regex(/^[A-Za-z0-9_\-:.]{8,128}$/, 'must be 8 to 128 letters, digits or -_:.'))), {
    param: { in: 'header' },
    description: 'A repeat with the same key (within 10 minutes) answers the first answer again, without making a second verification.',
  }),
});
