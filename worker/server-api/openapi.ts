/**
 * The OpenAPI 3.1 document of `/v1`, built from the route definitions
 * (`routes.ts`) and their zod/mini schemas with zod's own JSON Schema
 * converter: the document is never a file of its own, so it cannot drift
 * from what the routes validate. Built once per isolate, on first ask.
 */
import * as z from 'zod/mini';
import { routes, type RouteDefinition } from './routes';
import { webhooks } from './webhooks';

type Json = Record<string, unknown>;

const COMPONENTS = '#/components/schemas/';

/**
 * How zod converts: `input`, so an object says what the worker refuses
 * (`strictObject`: no other property) and an answer's object does not
 * promise a client that no property will ever be added.
 */
const OPTIONS = {
  io: 'input',
  target: 'draft-2020-12',
  unrepresentable: 'any',
  uri: (id: string) => COMPONENTS + id,
  // zod writes JavaScript's safe-integer bounds on every integer: noise to a reader (and to typed clients).
  override: ({ jsonSchema: s }: { jsonSchema: Json }) => {
    if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum;
    if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum;
  },
} as const;

/** A schema as JSON Schema: a `$ref` for a named one (its `id`), inline otherwise. */
function schemaOf(schema: z.ZodMiniType): Json {
  const id = z.globalRegistry.get(schema)?.id;
  if (id) return { $ref: COMPONENTS + id };
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, OPTIONS) as Json;
  return json;
}

/** Every named schema (those with an `id`), each once, under components. */
function components(): Record<string, Json> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, OPTIONS) as { schemas: Record<string, Json> };
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _s, $id: _i, id: _id, ...json }]) => [id, json]));
}

/** The properties of a params, query or headers object as OpenAPI parameters. */
function parameters(object: z.ZodMiniObject | undefined, where: 'path' | 'query' | 'header'): Json[] {
  if (!object) return [];
  return Object.entries(object._zod.def.shape).map(([name, schema]) => {
    const json = schemaOf(schema as z.ZodMiniType);
    const description = z.globalRegistry.get(schema as z.ZodMiniType)?.description ?? (json.description as string | undefined);
    return {
      name,
      in: where,
      required: where === 'path' || (schema as z.ZodMiniType)._zod.optin !== 'optional',
      ...(description ? { description } : {}),
      schema: json,
    };
  });
}

function operation(route: RouteDefinition): Json {
  const r = route.request ?? {};
  const params = [...parameters(r.params, 'path'), ...parameters(r.query, 'query'), ...parameters(r.headers, 'header')];
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.security ? { security: route.security } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(r.body) } } } } : {}),
    responses: Object.fromEntries(
      Object.entries(route.responses).map(([status, answer]) => [
        status,
        {
          description: answer.description,
          content: { 'application/json': { schema: answer.schema ? schemaOf(answer.schema) : { type: 'object' } } },
        },
      ]),
    ),
  };
}

function build(): Json {
  const paths: Record<string, Json> = {};
  for (const route of Object.values(routes) as RouteDefinition[]) (paths[route.path] ??= {})[route.method] = operation(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'kyc-onboard partner server API',
      version: '1.0.0',
      description:
        "Server to server: start, read, list, cancel and redact verifications with a partner's server key. Every answer is `Cache-Control: no-store`; errors are an `ErrorObject`. Guide: docs/server-api.md.",
    },
    servers: [{ url: '/', description: 'The worker (its PUBLIC_ORIGIN)' }],
    security: [{ serverKey: [] }],
    paths,
    webhooks: Object.fromEntries(
      webhooks.map((w) => [
        w.type,
        {
          post: {
            operationId: w.operationId,
            summary: w.summary,
            description: w.description,
            requestBody: { required: true, content: { 'application/json': { schema: schemaOf(w.schema) } } },
            responses: { 200: { description: 'Any 2xx acknowledges the event; a 410 stops deliveries; anything else is retried.' } },
          },
        },
      ]),
    ),
    components: {
      securitySchemes: {
        serverKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'kyc_sk_test_… or kyc_sk_live_…',
          description:
            'A server key: `kyc_sk_test_` (a deployment whose vendor is the sandbox) or `kyc_sk_live_` (a real vendor) + 43 characters; `npm run partners -- add` prints one, once.',
        },
      },
      schemas: components(),
    },
  };
}

// eslint-disable-next-line registries/no-dependency-registry -- the document, built once from the definitions
let document: Json | undefined;

/** The document (the same object on every call of an isolate). */
export function openapiDocument(): Json {
  return (document ??= build());
}
