/**
 * What `/v1` validates (`app.ts`): the request body, query and header
 * schemas, with the `.meta()` the OpenAPI document takes from them. Apart
 * from `schemas.ts` (what the routes answer) and `routes.ts` (the route
 * table), which only `npm run openapi` needs, so the worker's bundle holds
 * neither.
 */
import * as z from 'zod';

/** Control characters and bidi overrides have no place in a reference (as in the browser API). */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export const VERIFICATION_STATUSES = ['created', 'open', 'final', 'expired', 'canceled'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export const CreateVerificationRequest = z
  .strictObject({
    customerRef: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(100, 'must be at most 100 characters')
      .refine((s) => !UNSAFE_TEXT.test(s), 'contains characters that are not allowed')
      .meta({
        description: "Your own reference for the person's account (1–100 characters). Comes back in the result token and webhooks.",
      }),
    returnUrl: z.string().max(2048, 'is too long').optional().meta({
      description: 'Where the hosted flow returns the person: a page on one of your origins. Default: the page that embeds the widget.',
    }),
    sms: z
      .boolean()
      .optional()
      .meta({ description: 'May the person choose to get the link by text message (the widget offers "Text me a link").' }),
    expiresInSeconds: z
      .number()
      .int('must be a whole number')
      .min(300, 'must be at least 300')
      .max(86_400, 'must be at most 86400')
      .optional()
      .meta({ description: 'How long the client secret can start or resume the verification: 300–86400 seconds, default 86400.' }),
  })
  .meta({ id: 'CreateVerificationRequest' });
export type CreateVerificationRequest = z.input<typeof CreateVerificationRequest>;

export const GetQuery = z.strictObject({
  include: z
    .enum(['person'], { error: 'must be person' })
    .optional()
    .meta({ param: { name: 'include', in: 'query' }, description: '`person`: add the verified person (only once final).' }),
});

export const ListQuery = z.strictObject({
  customerRef: z
    .string()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .optional()
    .meta({ param: { name: 'customerRef', in: 'query' } }),
  status: z
    .enum(VERIFICATION_STATUSES, { error: `must be one of ${VERIFICATION_STATUSES.join(', ')}` })
    .optional()
    .meta({ param: { name: 'status', in: 'query' } }),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number from 1 to 100')
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1').max(100, 'must be at most 100'))
    .optional()
    .meta({ param: { name: 'limit', in: 'query' }, description: '1–100, default 20.' }),
  cursor: z
    .string()
    .max(64, 'is not a cursor')
    .optional()
    .meta({ param: { name: 'cursor', in: 'query' }, description: '`nextCursor` of the previous page.' }),
});

export const IdempotencyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[A-Za-z0-9_\-:.]{8,128}$/, 'must be 8 to 128 letters, digits or -_:.')
    .optional()
    .meta({
      param: { in: 'header' },
      description: 'A repeat with the same key (within 10 minutes) answers the first answer again, without making a second verification.',
    }),
});
