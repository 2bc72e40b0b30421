/**
 * Registers a route definition (`routes.ts`) on the router, as
 * `@hono/zod-openapi`'s `app.openapi(route, handler)` does: the method and
 * path come from the definition, its query and headers are validated with its
 * schemas before the handler runs (a 400 naming each bad field), and a known
 * path asked with another method is a 405 with `Allow`.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Hono } from 'hono/tiny';
import type * as z from 'zod/mini';
import type { AppEnv } from '../app-env';
import { ApiError, PARSE, validationError, zodIssues } from '../lib/errors';
import { honoPath, type RouteDefinition } from './routes';

type Out<S> = S extends z.ZodMiniType ? z.output<S> : undefined;

/** What the handler gets, validated. */
export interface Input<R extends RouteDefinition> {
  query: Out<NonNullable<R['request']>['query']>;
  headers: Out<NonNullable<R['request']>['headers']>;
}

/** Validates `input` with `schema`, or throws the 400 that names each bad field. */
export function check<S extends z.ZodMiniType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input, PARSE);
  if (!parsed.success) throw validationError(zodIssues(parsed.error));
  return parsed.data;
}

function headersOf(c: Context<AppEnv>, schema: z.ZodMiniObject): Record<string, string | undefined> {
  return Object.fromEntries(Object.keys(schema._zod.def.shape).map((name) => [name, c.req.header(name)]));
}

export function serve<R extends RouteDefinition>(
  app: Hono<AppEnv>,
  route: R,
  handler: (c: Context<AppEnv>, input: Input<R>) => Response | Promise<Response>,
  before: MiddlewareHandler<AppEnv>[] = [],
): void {
  const { query, headers } = route.request ?? {};
  app.on(route.method.toUpperCase(), [honoPath(route.path)], ...before, async (c) =>
    handler(c, {
      query: query ? check(query, c.req.query()) : undefined,
      headers: headers ? check(headers, headersOf(c, headers)) : undefined,
    } as Input<R>),
  );
}

/** After every route is served: another method on a known path is a 405 naming the allowed ones. */
export function refuseOtherMethods(app: Hono<AppEnv>, definitions: readonly RouteDefinition[]): void {
  const allowed = new Map<string, string[]>();
  for (const r of definitions) allowed.set(r.path, [...(allowed.get(r.path) ?? []), r.method.toUpperCase()]);
  for (const [path, methods] of allowed) {
    app.all(honoPath(path), () => {
      throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'This method is not allowed here.', [], { Allow: methods.join(', ') });
    });
  }
}
