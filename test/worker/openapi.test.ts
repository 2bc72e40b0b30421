/**
 * The OpenAPI 3.1 document of `/v1` (GET /v1/openapi.json), built by `npm
 * run openapi` from the route definitions the router serves
 * (worker/server-api/routes.ts, worker/server-api/openapi.ts): valid
 * OpenAPI 3.1 (Redocly's `spec` rules); its paths and methods are exactly the
 * routes the worker answers under /v1 (a walk of both); every error answer is
 * an ErrorObject; every webhook event is described, and each body the worker
 * sends matches its event's schema.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Hono } from 'hono/tiny';
import type * as z from 'zod/mini';
import { ApiError } from '../../worker/lib/errors';
import { serverApi } from '../../worker/server-api/app';
import { openapiDocument } from '../../worker/server-api/openapi';
import { honoPath } from '../../worker/server-api/routes';
import { webhooks } from '../../worker/server-api/webhooks';
import { newVerificationId, type StoredVerification, type WebhookEventType } from '../../worker/verifications/verification';
import { CHECKING } from '../../worker/vendors/idv/mapping';
import { stored } from '../support/state-view';
import { webhookEvent } from '../../worker/verifications/webhook-event';
import { stamped } from '../../worker/verifications/webhook-outbox';
import { realNow } from '../support/dates';

type Operation = { responses: Record<string, unknown>; security?: unknown[]; parameters?: { name: string; schema: { type: string } }[] };
const doc = openapiDocument() as {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } } }>;
  components: { schemas: Record<string, unknown> };
};
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

async function lint(source: string) {
  const config = await createConfig({ rules: { spec: 'error', 'no-unresolved-refs': 'error', 'operation-operationId-unique': 'error' } });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  return problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
}

/** `METHOD path` of every route a router serves under /v1 (the 405 catch-alls aside). */
const served = (routes: readonly { method: string; path: string }[]) =>
  [...new Set(routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/v1/')).map((r) => `${r.method} ${r.path}`))].sort();

function documented(d: typeof doc): string[] {
  return Object.entries(d.paths)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${honoPath(path)}`),
    )
    .sort();
}

describe('the OpenAPI document of /v1', () => {
  it('validates as OpenAPI 3.1', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(await lint(JSON.stringify(doc)), []);
  });

  it('a document with a mistake fails the same check (the check can fail)', async () => {
    const broken = structuredClone(doc) as Record<string, any>;
    broken.paths['/v1/verifications'].get.responses = { 200: { content: {} } }; // a response without its description
    assert.notDeepEqual(await lint(JSON.stringify(broken)), []);
  });

  it('its paths and methods are exactly the routes the worker serves under /v1', () => {
    assert.deepEqual(served(serverApi.routes), documented(doc));
    assert.ok(served(serverApi.routes).length >= 7);
  });

  it('the walk finds a route served but not documented, and one documented but not served', () => {
    const extra = [...serverApi.routes, { method: 'GET', path: '/v1/undocumented' }];
    assert.notDeepEqual(served(extra), documented(doc));
    const fewer = structuredClone(doc);
    delete fewer.paths['/v1/verifications/{verificationId}/redact'];
    assert.notDeepEqual(served(serverApi.routes), documented(fewer));
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

  it('says integer where the API takes or gives a whole number (limit)', () => {
    const limit = doc.paths['/v1/verifications']!.get!.parameters!.find((p) => p.name === 'limit');
    assert.equal(limit?.schema.type, 'integer');
  });

  it('is served at GET /v1/openapi.json as the build made it (through ASSETS), no-store, without a key and without CORS', async () => {
    // As `npm run openapi` (part of the build) writes it among the static assets.
    const asked: string[] = [];
    const ASSETS = {
      fetch: async (url: string) => {
        asked.push(new URL(url).pathname);
        return new Response(JSON.stringify(doc), { headers: { 'Content-Type': 'application/json' } });
      },
    };
    const res = await serverApi.request('/v1/openapi.json', {}, { ASSETS });
    assert.deepEqual(asked, ['/v1/openapi.json']);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('Cache-Control'), 'no-store');
    assert.equal(res.headers.get('Access-Control-Allow-Origin'), null);
    assert.deepEqual(await res.json(), JSON.parse(JSON.stringify(doc)));
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

describe('the webhooks of the document', () => {
  it('describes every event with its body', () => {
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [
      'verification.canceled',
      'verification.completed',
      'verification.expired',
      'verification.redacted',
      'verification.requires_input',
    ]);
    for (const [type, item] of Object.entries(doc.webhooks)) {
      const ref = item.post.requestBody.content['application/json'].schema.$ref;
      const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')] as { properties: { type: unknown } };
      assert.deepEqual(schema.properties.type, { type: 'string', const: type });
    }
  });

  const now = realNow();
  // Records as the code before the explicit state wrote them (read as storage reads them now).
  const base: StoredVerification & { status: string } = {
    id: newVerificationId(),
    livemode: false,
    partnerId: 'alpha',
    partnerOrigin: 'https://alpha.example',
    customerRef: 'acct-1',
    customerRefSource: 'server',
    entityId: 'entity-1',
    workerOrigin: 'https://kyc.example',
    createdAt: now,
    linkExpiresAt: now + 60_000,
    deadline: now + 120_000,
    status: CHECKING,
    polls: 3,
    webhook: { state: 'none', attempts: 0 },
  };
  const failed = { checkStatus: 'NO_MATCH', endedAt: now + 500, checkId: 'check-1' };
  const sent: [string, StoredVerification, WebhookEventType][] = [
    ['completed', { ...base, status: 'CHECKED_SUCCESS_CLEAR', finalAt: now + 1000 }, 'verification.completed'],
    ['expired', { ...base, expiredAt: now + 1000, expiredReason: 'not_finished' }, 'verification.expired'],
    [
      'expired without a link',
      { ...base, entityId: undefined, partnerOrigin: '', expiredAt: now + 1000, expiredReason: 'not_claimed' },
      'verification.expired',
    ],
    ['canceled', { ...base, canceledAt: now + 1000 }, 'verification.canceled'],
    ['requires_input', { ...base, attempts: [failed], requiresInputAt: now + 500 }, 'verification.requires_input'],
    [
      'redacted',
      { ...base, customerRef: undefined, entityId: undefined, canceledAt: now + 1000, redactedAt: now + 2000 },
      'verification.redacted',
    ],
  ];
  for (const [name, v, type] of sent) {
    it(`the body the worker sends (${name}) matches its event's schema, and holds no field the document does not name`, () => {
      // As the outbox sends it: `data.sequence` stamped in.
      const event = stamped(webhookEvent(stored(v), type), 2);
      const body = JSON.parse(event.body) as { type: string; data: Record<string, unknown> };
      const described = webhooks.find((w) => w.type === body.type);
      assert.ok(described, `${body.type} is described`);
      const parsed = described.schema.safeParse(body);
      assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
      const dataShape = (described.schema._zod.def.shape.data as z.ZodMiniObject)._zod.def.shape;
      for (const key of Object.keys(body.data)) assert.ok(key in dataShape, `data.${key} is described`);
    });
  }

  it('every event type the worker can send is one of the document', () => {
    assert.deepEqual(new Set(sent.map(([, , type]) => type)), new Set(webhooks.map((w) => w.type)));
  });

  it('a body that is not what its event says fails the check (the check can fail)', () => {
    const completedEvent = webhookEvent(stored({ ...base, status: 'CHECKED_SUCCESS_CLEAR', finalAt: now }), 'verification.completed');
    const body = JSON.parse(stamped(completedEvent, 1).body) as { data: object };
    const completed = webhooks.find((w) => w.type === 'verification.completed')!.schema;
    // Without the sequence the outbox stamps in, a body is not what the document promises.
    assert.equal(completed.safeParse(JSON.parse(completedEvent.body)).success, false);
    assert.equal(completed.safeParse({ ...body, data: { ...body.data, checkStatus: undefined } }).success, false);
    assert.equal(completed.safeParse({ ...body, type: 'verification.expired' }).success, false);
  });
});
