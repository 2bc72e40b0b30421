/**
 * The one error envelope: the spec's ErrorObject, with our request id. Every
 * error the worker answers goes through `ApiError` and `app.onError`. Issues
 * name the field (`issueLocation`) and never repeat the submitted value.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import * as z from 'zod/mini';
import type { ErrorObject } from '../contract';

/** What the envelope needs of a request: its id (set by the first middleware; errors know nothing else of the app). */
interface RequestIdEnv {
  Variables: { requestId: string };
}

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
  | 'ATTEMPT_NOT_ALLOWED'
  | 'WITHDRAW_NOT_ALLOWED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'MISCONFIGURED'
  | 'VENDOR_REJECTED'
  | 'VENDOR_ERROR'
  | 'VENDOR_TIMEOUT'
  | 'VENDOR_BUSY'
  | 'VENDOR_MISMATCH'
  | 'CAPABILITY_UNAVAILABLE'
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

export function errorBody<E extends RequestIdEnv>(c: Context<E>, err: ApiError): ErrorObject {
  // An error thrown before the request-id middleware ran has none.
  return { errorCode: err.errorCode, errorMsg: err.errorMsg, issues: err.issues, requestId: c.get('requestId') ?? '' };
}

export function errorResponse<E extends RequestIdEnv>(c: Context<E>, err: ApiError): Response {
  for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
  return c.json(errorBody(c, err), err.status);
}

const SAFE_KEY = /^[A-Za-z0-9_]{1,64}$/;

/** A field path that is safe to show: keys we do not know are not repeated. */
export function location(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? String(p) : SAFE_KEY.test(String(p)) ? String(p) : '<unknown>')).join('.');
}

/**
 * The English texts of the problems our schemas leave without a message of
 * their own (`.check(z.minLength(1))`, an enum, a literal), word for word
 * what zod's English locale says. zod/mini loads no locale (its text would be
 * "Invalid input"), and loading zod's whole English locale for these few
 * would cost more bytes: pass `PARSE` to every `safeParse` whose messages
 * someone reads.
 */
export const zodEnglish = (i: z.core.$ZodRawIssue): string | undefined => {
  switch (i.code) {
    case 'invalid_type': {
      const name = (t: string, v?: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : t === 'nan' ? 'NaN' : t);
      return `Invalid input: expected ${name(i.expected)}, received ${name(z.util.parsedType(i.input), i.input)}`;
    }
    case 'invalid_value':
      return i.values.length === 1
        ? `Invalid input: expected ${z.util.stringifyPrimitive(i.values[0])}`
        : `Invalid option: expected one of ${z.util.joinValues(i.values, '|')}`;
    case 'too_big':
    case 'too_small': {
      const big = i.code === 'too_big';
      const bound = big ? i.maximum : i.minimum;
      const adj = i.exact ? 'exactly ' : i.inclusive ? (big ? '<=' : '>=') : big ? '<' : '>';
      const unit = i.origin === 'string' ? 'characters' : i.origin === 'array' || i.origin === 'set' ? 'items' : undefined;
      const what = `Too ${big ? 'big' : 'small'}: expected ${i.origin}`;
      return unit ? `${what} to have ${adj}${bound.toString()} ${unit}` : `${what} to be ${adj}${bound.toString()}`;
    }
    case 'invalid_format':
      return i.format === 'regex' && 'pattern' in i ? `Invalid string: must match pattern ${String(i.pattern)}` : `Invalid ${i.format}`;
    case 'unrecognized_keys':
      return `Unrecognized key${i.keys.length > 1 ? 's' : ''}: ${z.util.joinValues(i.keys, ', ')}`;
    default:
      return undefined; // zod's own fallback, "Invalid input", as the English locale says
  }
};

/** Options for a `safeParse` whose issues are shown: zod's English texts, and the input on each issue (read, never repeated). */
export const PARSE = { reportInput: true, error: zodEnglish } as const;

/** One issue per bad field, without values (zod's own messages carry none, except the keys we filter). */
export function zodIssues(error: z.core.$ZodError): Issue[] {
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
