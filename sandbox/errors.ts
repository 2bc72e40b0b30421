/**
 * The sandbox's one error envelope: the spec's ErrorObject (section 7),
 * `{errorCode, errorMsg, issues: [{issue, issueLocation}], requestId}`.
 * Handlers throw `SandboxError`; the app's `onError` turns it (and anything
 * unexpected) into a JSON answer. Issues never echo the offending value.
 */
import type * as z from 'zod/mini';

export interface Issue {
  issue: string;
  issueLocation: string;
}

export type SandboxStatus = 400 | 401 | 403 | 404 | 405 | 410 | 413 | 415 | 500;

export class SandboxError extends Error {
  constructor(
    readonly status: SandboxStatus,
    readonly errorCode: string,
    readonly errorMsg: string,
    readonly issues: Issue[] = [],
  ) {
    super(`${errorCode}: ${errorMsg}`);
    this.name = 'SandboxError';
  }
}

/** 400 with one issue per bad field. */
export function invalid(issues: Issue[], errorMsg = 'The request is not valid.', errorCode = 'INVALID_REQUEST'): SandboxError {
  return new SandboxError(400, errorCode, errorMsg, issues);
}

export function notFound(what: string, issueLocation: string): SandboxError {
  return new SandboxError(404, 'NOT_FOUND', `${what} was not found.`, [
    { issue: `${what} was not found or is not visible to this caller`, issueLocation },
  ]);
}

/** Maps zod issues to `{issue, issueLocation}` without ever including the value. */
export function zodIssues(error: z.core.$ZodError, prefix = ''): Issue[] {
  return error.issues.map((i) => ({
    issue: describe(i),
    issueLocation: [prefix, ...i.path.map(String)].filter(Boolean).join('.') || prefix || 'body',
  }));
}

function describe(i: z.core.$ZodIssue): string {
  switch (i.code) {
    case 'invalid_type':
      return `must be ${i.expected === 'object' ? 'an object' : i.expected === 'array' ? 'an array' : `a ${i.expected}`}`;
    case 'invalid_value':
      return `must be one of ${i.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return `must be at least ${String(i.minimum)}`;
    case 'too_big':
      return `must be at most ${String(i.maximum)}`;
    case 'invalid_format':
      return `is not a valid ${i.format}`;
    default:
      return 'is not valid';
  }
}

export function errorBody(err: SandboxError, requestId: string) {
  return { errorCode: err.errorCode, errorMsg: err.errorMsg, issues: err.issues, requestId };
}
