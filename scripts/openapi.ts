#!/usr/bin/env node
// `npm run openapi` (run by `npm run build` and `npm run typecheck`): builds,
// from the route definitions (worker/server-api/routes.ts, through
// worker/server-api/openapi.ts),
//   - dist/public/v1/openapi.json, the OpenAPI 3.1 document the worker serves
//     at GET /v1/openapi.json (through ASSETS);
//   - examples/partner-backend/kyc-api.d.ts, the example backend's types for
//     its openapi-fetch client (openapi-typescript).
// Both are built, never committed (docs/architecture.md "Generated files").
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openapiDocument } from '../worker/server-api/openapi';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The example backend's types of the API (openapi-typescript), for its openapi-fetch client. */
export async function clientTypes(doc: Record<string, unknown>): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const ast = await openapiTS(doc as never, { alphabetize: false });
  return `// Built by \`npm run openapi\` from GET /v1/openapi.json (openapi-typescript): do not edit, not committed.\n${astToString(ast)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const doc = openapiDocument();
  const out = join(ROOT, 'dist/public/v1/openapi.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
  writeFileSync(join(ROOT, 'examples/partner-backend/kyc-api.d.ts'), await clientTypes(doc));
  console.log('[openapi] dist/public/v1/openapi.json, examples/partner-backend/kyc-api.d.ts');
}
