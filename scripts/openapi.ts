#!/usr/bin/env node
// `npm run openapi`: the OpenAPI 3.1 document of the partner's server API,
// generated with @hono/zod-openapi from the route table the worker runs
// (worker/server-api/routes.ts, whose zod schemas the routes validate with),
// written to worker/server-api/openapi.json (served at GET /v1/openapi.json).
// `--check` (npm run check:docs) fails when the file is not up to date.
// Built here, not in the worker: the generator would add ~77 KB gzip to it.
import { OpenAPIHono } from '@hono/zod-openapi';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routes } from '../worker/server-api/routes';
// @ts-expect-error a plain .mjs helper without types
import { writeOrCheck } from './lib/generated.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function openapiDocument(): Record<string, unknown> {
  const app = new OpenAPIHono();
  app.openAPIRegistry.registerComponent('securitySchemes', 'serverKey', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'kyc_sk_…',
    description: 'A server key (`kyc_sk_` + 43 characters): `npm run partners -- add` prints one, once.',
  });
  for (const route of Object.values(routes)) app.openapi(route as never, (() => new Response()) as never);
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'kyc-onboard partner server API',
      version: '1.0.0',
      description:
        "Server to server: start, read, list, cancel and redact verifications with a partner's server key. Every answer is `Cache-Control: no-store`; errors are an `ErrorObject`. Guide: docs/server-api.md.",
    },
    servers: [{ url: '/', description: 'The worker (its PUBLIC_ORIGIN)' }],
    security: [{ serverKey: [] }],
  }) as unknown as Record<string, unknown>;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeOrCheck(join(ROOT, 'worker/server-api/openapi.json'), JSON.stringify(openapiDocument(), null, 2) + '\n', {
    root: ROOT,
    source: 'worker/server-api/routes.ts',
    fix: 'npm run openapi',
  });
}
