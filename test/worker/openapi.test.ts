/**
 * The OpenAPI 3.1 document of `/v1` (worker/server-api/openapi.json, served
 * at GET /v1/openapi.json): generated from the route table the worker runs,
 * valid OpenAPI 3.1 (Redocly's `spec` rules), and its paths and methods are
 * exactly the routes the worker answers (a walk of both).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { openapiDocument } from '../../scripts/openapi';
import { Hono } from 'hono/tiny';
import { ApiError } from '../../worker/lib/errors';
import { serverApi } from '../../worker/server-api/app';
import * as requests from '../../worker/server-api/requests';
import { honoPath } from '../../worker/server-api/routes';
import * as documented from '../../worker/server-api/schemas';

const ROOT = join(import.meta.dirname, '../..');
const FILE = join(ROOT, 'worker/server-api/openapi.json');
const doc = JSON.parse(readFileSync(FILE, 'utf8')) as {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
};
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('the OpenAPI document of /v1', () => {
  it('is what the route table generates now (no drift)', () => {
    assert.deepEqual(doc, openapiDocument());
  });

  it('validates as OpenAPI 3.1', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const config = await createConfig({ rules: { spec: 'error', 'no-unresolved-refs': 'error', 'operation-operationId-unique': 'error' } });
    const problems = await lintFromString({ source: readFileSync(FILE, 'utf8'), absoluteRef: FILE, config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    assert.deepEqual(errors, []);
  });

  it('a document with a mistake fails the same check (the check can fail)', async () => {
    const broken = structuredClone(doc) as Record<string, any>;
    broken.paths['/v1/verifications'].get.responses = { 200: { content: {} } }; // a response without its description
    const config = await createConfig({ rules: { spec: 'error' } });
    const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: FILE, config });
    assert.ok(problems.some((p) => p.severity === 'error'));
  });

  it('its paths and methods are exactly the routes the worker answers', () => {
    const documented = Object.entries(doc.paths)
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${honoPath(path)}`),
      )
      .sort();
    const served = [...new Set(serverApi.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`))].sort();
    assert.deepEqual(served, documented);
  });

  it('describes the errors of every route (an ErrorObject), and every route but the document needs a server key', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (path === '/v1/openapi.json') {
          assert.deepEqual(op.security, []);
          continue;
        }
        assert.ok(op.responses['401'], `${method} ${path} documents 401`);
        const errors = Object.keys(op.responses).filter((s) => Number(s) >= 400);
        assert.ok(errors.length >= 3, `${method} ${path} documents its errors`);
        for (const s of errors) assert.match(JSON.stringify(op.responses[s]), /#\/components\/schemas\/ErrorObject/);
      }
    }
  });

  it('is served at GET /v1/openapi.json as it is in the repository, no-store, without a key', async () => {
    // As the build puts it among the static assets (scripts/build-widget.mjs): the worker reads it through ASSETS.
    const asked: string[] = [];
    const ASSETS = {
      fetch: async (url: string) => {
        asked.push(new URL(url).pathname);
        return new Response(readFileSync(FILE, 'utf8'), { headers: { 'Content-Type': 'application/json' } });
      },
    };
    const res = await serverApi.request('/v1/openapi.json', {}, { ASSETS });
    assert.deepEqual(asked, ['/v1/openapi.json']);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('Cache-Control'), 'no-store');
    assert.deepEqual(await res.json(), doc);
    assert.equal(res.headers.get('Access-Control-Allow-Origin'), null);
  });

  it('is generated from what the worker validates with: its zod/mini schemas rebuilt in classic zod accept and refuse the same', () => {
    const cases = {
      CreateVerificationRequest: [
        { customerRef: ' r-1 ', sms: true, expiresInSeconds: 600, returnUrl: 'https://shop.example/done' },
        { customerRef: '' },
        { customerRef: 'r', expiresInSeconds: 299 },
        { customerRef: 'r', expiresInSeconds: 1.5 },
        { customerRef: 'r\u0000' },
        { customerRef: 'r', extra: 1 },
        {},
      ],
      ListQuery: [
        { limit: '20', status: 'open', customerRef: 'r', cursor: 'c' },
        { limit: '0' },
        { limit: 'x' },
        { status: 'done' },
        { other: '1' },
        {},
      ],
      GetQuery: [{ include: 'person' }, { include: 'all' }, {}],
      IdempotencyHeader: [
        { 'Idempotency-Key': 'key-12345678' },
        { 'Idempotency-Key': 'short' },
        { 'Idempotency-Key': 'key-12345678', Other: 'x' },
      ],
    } as const;
    let refused = 0;
    for (const [name, inputs] of Object.entries(cases) as [keyof typeof cases, readonly unknown[]][]) {
      for (const input of inputs) {
        const worker = requests[name].safeParse(input);
        const doc = documented[name].safeParse(input);
        assert.equal(doc.success, worker.success, `${name} ${JSON.stringify(input)}`);
        assert.deepEqual(doc.data, worker.data, `${name} ${JSON.stringify(input)}`);
        if (!worker.success) refused++;
      }
      assert.ok((documented[name] as unknown) !== requests[name]); // two schemas: the check compares something
    }
    assert.ok(refused >= 8, 'the cases include refused input');
  });

  it('answers 404 (not a stale copy) when the build has not put the document among the assets', async () => {
    const ASSETS = { fetch: async () => new Response('not found', { status: 404 }) };
    // serverApi alone has no error handler (createApp's turns an ApiError into its answer): catch what it throws.
    let thrown: unknown;
    const app = new Hono().route('/', serverApi).onError((err) => {
      thrown = err;
      return new Response(null, { status: 599 });
    });
    await app.request('/v1/openapi.json', {}, { ASSETS });
    assert.ok(thrown instanceof ApiError, String(thrown));
    assert.equal(thrown.status, 404);
    assert.equal(thrown.errorCode, 'NOT_FOUND');
  });
});
