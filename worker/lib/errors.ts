/**
 * The one error envelope: the spec's ErrorObject, with our request id. Every
 * error the worker answers goes through `ApiError` and `app.onError`. Issues
 * name the field (`issueLocation`) and never repeat the submitted value.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type * as z from 'zod';
import type { ErrorObject } from '../contract';
import type { AppEnv } from './env';

export type Issue = ErrorObject['issues'][number];

/** errorCode values the worker emits; docs/api.md lists them with their meaning. */
export type ErrorCode =
  | 'INVALID_JSON'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'VALIDATION_FAILED'
  | 'SMS_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'SESSION_INVALID'
  | 'UNAUTHENTICATED'
  | 'ORIGIN_NOT_ALLOWED'
  | 'RATE_LIMITED'
  | 'TURNSTILE_FAILED'
  | 'IDEMPOTENCY_CONFLICT'
  | 'VERIFICATION_ENDED'
  | 'VERIFICATION_CLOSED'
  | 'VERIFICATION_OPEN'
  | 'RENEWAL_NOT_ALLOWED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'MISCONFIGURED'
  | 'VENDOR_REJECTED'
  | 'VENDOR_ERROR'
  | 'VENDOR_TIMEOUT'
  | 'VENDOR_MISMATCH'
  | 'SIGNATURE_INVALID'
  | 'NOT_FINAL'
  | 'REDACTED'
  | 'NO_EVENT'
  | 'CLIENT_SECRET_INVALID'
  | 'INTERNAL_ERROR';

/** The name of whatever was thrown (an Error, a DOMException such as TimeoutError), for log lines: never its message. */
export const errorName = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'name' in err && typeof err.name === 'string' ? err.name : 'Error';

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly errorCode: ErrorCode,
    readonly errorMsg: string,
    readonly issues: Issue[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(errorMsg);
    this.name = 'ApiError';
  }
}

export function errorBody(c: Context<AppEnv>, err: ApiError): ErrorObject {
  // An error thrown before the request-id middleware ran has none.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  return { errorCode: err.errorCode, errorMsg: err.errorMsg, issues: err.issues, requestId: c.get('requestId') ?? '' };
}

export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
  return c.json(errorBody(c, err), err.status);
}

const SAFE_KEY = /^[A-Za-z0-9_]{1,64}$/;

/** A field path that is safe to show: keys we do not know are not repeated. */
function location(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? String(p) : SAFE_KEY.test(String(p)) ? String(p) : '<unknown>')).join('.');
}

/** One issue per bad field, without values (zod's own messages carry none, except the keys we filter). */
export function zodIssues(error: z.ZodError): Issue[] {
  const out: Issue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ issue: 'is not a known field', issueLocation: location([...issue.path, key]) || '<body>' });
      }
      continue;
    }
    let message = issue.message;
    if (issue.code === 'invalid_type') message = issue.input === undefined ? 'is required' : `must be a ${issue.expected}`;
    out.push({ issue: message, issueLocation: location(issue.path) || '<body>' });
  }
  return out;
}

export function validationError(issues: Issue[]): ApiError {
  return new ApiError(400, 'VALIDATION_FAILED', 'Some fields are missing or invalid.', issues);
}
