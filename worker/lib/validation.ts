/**
 * Reads and validates a JSON body. Instead of @hono/zod-validator, whose
 * default failure answer returns the whole ZodError with the submitted
 * values, this maps each problem to an ErrorObject issue without the value.
 */
import type { Context } from 'hono';
import type * as z from 'zod/mini';
import type { AppEnv } from '../app-env';
import { ApiError, PARSE, validationError, zodIssues } from './errors';

export async function readJson<S extends z.ZodMiniType>(
  c: Context<AppEnv>,
  /** The schema, or a choice of schema by the object's keys (one route, two kinds of body). */
  schemaOf: S | ((body: object) => S),
): Promise<{ data: z.output<S>; text: string }> {
  const type = c.req.header('Content-Type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON (Content-Type: application/json).');
  }
  // JSON is UTF-8 (RFC 8259); a body that is not is refused rather than
  // silently repaired with U+FFFD and passed on.
  const bytes = await c.req.arrayBuffer();
  let text: string;
  let json: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    json = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'INVALID_JSON', 'The body is not valid JSON.', [{ issue: 'is not valid JSON', issueLocation: '<body>' }]);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new ApiError(400, 'INVALID_JSON', 'The body must be a JSON object.', [
      { issue: 'must be a JSON object', issueLocation: '<body>' },
    ]);
  }
  // PARSE: zod's English texts, and reportInput so a present value of the wrong type reads "must be a
  // string", not "is required" (the value itself is never put in an answer: zodIssues keeps the message
  // and the path only).
  const schema = typeof schemaOf === 'function' ? schemaOf(json) : schemaOf;
  const parsed = schema.safeParse(json, PARSE);
  if (!parsed.success) throw validationError(zodIssues(parsed.error));
  return { data: parsed.data, text };
}
