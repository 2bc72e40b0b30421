/**
 * The method and path of each `/v1` route: what the worker's router
 * (`app.ts`) registers. `routes.ts` adds what each route takes and answers
 * (for the OpenAPI document) to these same entries, so the two cannot drift,
 * and the worker's bundle holds no documentation text.
 */
export const paths = {
  createVerification: { method: 'post', path: '/v1/verifications' },
  listVerifications: { method: 'get', path: '/v1/verifications' },
  getVerification: { method: 'get', path: '/v1/verifications/{verificationId}' },
  cancelVerification: { method: 'post', path: '/v1/verifications/{verificationId}/cancel' },
  redactVerification: { method: 'post', path: '/v1/verifications/{verificationId}/redact' },
  redeliverWebhook: { method: 'post', path: '/v1/verifications/{verificationId}/webhook/redeliver' },
  openapi: { method: 'get', path: '/v1/openapi.json' },
} as const;

/** Hono's form of an OpenAPI path: `{verificationId}` → `:verificationId`. */
export const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
