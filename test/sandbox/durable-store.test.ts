/**
 * The sandbox's storage primitive in workerd: the SandboxStore Durable Object
 * (SQLite) behind the sandbox app, started with wrangler's unstable_startWorker
 * on a small test entry (fixtures/do-worker.mjs), in memory, on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVendorClient, type VendorClient } from '../../worker/vendors/idv/client';
import { MAX_ENTITIES_PER_OWNER, MemoryStore, type CheckRecord, type EntityRecord, type OutboxMessage } from '../../sandbox/store';
import { realNow } from '../support/dates';
import { within } from '../support/wait';

Object.assign(process.env, {
  CI: 'true',
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
});
const { unstable_startWorker } = await import('wrangler');

type Worker = Awaited<ReturnType<typeof unstable_startWorker>>;
let worker: Worker | undefined;
let base = '';

before(async () => {
  const started = (async () => {
    const w = await unstable_startWorker({
      config: resolve(import.meta.dirname, 'fixtures/wrangler.toml'),
      dev: { server: { hostname: '127.0.0.1', port: 0 }, inspector: false, persist: false, watch: false, logLevel: 'error' },
    });
    worker = w;
    await w.ready;
    return w;
  })();
  const w = await within(started, { what: 'workerd to start', timeoutMs: 30_000 });
  base = (await w.url).origin;
});

after(async () => {
  await worker?.dispose();
});

function client(creds: { apiKey: string; customerId: string; childId?: string }): VendorClient {
  return createVendorClient({
    baseUrl: `${base}/sandbox`,
    ...creds,
    channel: 'workerd-test',
    timeoutMs: 5000,
    searchPath: '/v2/kyc/entity/search',
    fetch: (r) => fetch(r),
  });
}

async function store<T>(method: string, args: unknown[], name = 'sandbox'): Promise<T> {
  const res = await fetch(`${base}/__store`, { method: 'POST', body: JSON.stringify({ method, args, name }) });
  const body = (await res.json()) as { result?: T; error?: string };
  assert.equal(res.status, 200, body.error);
  return body.result as T;
}

const parent = { customerId: 'demo-customer', apiKey: 'sandbox-key' };
const childA = { ...parent, childId: 'demo-child-a', apiKey: 'sandbox-key-a' };
const childB = { ...parent, childId: 'demo-child-b', apiKey: 'sandbox-key-b' };

describe('SandboxStore Durable Object in workerd', () => {
  it('keeps state across requests: link → CHECKING → hosted flow → final status', async () => {
    const a = client(childA);
    const link = await a.onboardingUrl({
      consent: true,
      entity: { name: { givenName: 'Dora', familyName: 'Durable' } },
      successRedirectURL: 'https://partner.test/back?kyc_return=success',
    });
    assert.ok(link.url.startsWith(`${base}/sandbox/flow/`));
    const entityId = link.entity.entityId!;
    assert.equal((await a.result({ entity: { entityId } })).checkStatus, 'CHECKING');

    const page = await fetch(link.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Dora Durable/);

    const done = await fetch(link.url, { method: 'POST', body: new URLSearchParams({ outcome: 'complete' }), redirect: 'manual' });
    assert.equal(done.status, 303);
    const location = new URL(done.headers.get('location')!);
    assert.equal(location.searchParams.get('kyc_return'), 'success');
    const checkId = location.searchParams.get('checkId')!;

    const result = await a.result({ checkId, entity: { entityId } });
    assert.equal(result.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    // The parent sees the child's check; the sibling does not.
    assert.equal((await client(parent).result({ checkId })).checkStatus, 'CHECKED_SUCCESS_CLEAR');
    await assert.rejects(client(childB).result({ checkId }), (e: { status?: number }) => e.status === 404);
  });

  it('answers the RPC interface: scopes, document index, newest check first, outbox by customerRef', async () => {
    const name = `rpc-${Date.now()}`;
    const now = realNow();
    const entity = (id: string, childId: string | null, docId: string): EntityRecord => ({
      entityId: id,
      owner: { customerId: 'cust-x', childId },
      entity: { entityId: id, name: { familyName: 'Rpc' }, identityDocs: [{ documentId: docId, idType: 'PASSPORT', country: 'AUS' }] },
      channel: 'api',
      createdAt: now,
      updatedAt: now,
      expiresAt: now + 60_000,
    });
    await store('putEntity', [entity('e-parent', null, 'd-1')], name);
    await store('putEntity', [entity('e-child', 'kid', 'd-2')], name);
    await store(
      'putEntity',
      [entity('e-other', null, 'd-3')].map((e) => ({ ...e, owner: { customerId: 'cust-y', childId: null } })),
      name,
    );

    const own = await store<EntityRecord[]>('listEntities', [{ customerId: 'cust-x', childId: null }], name);
    assert.deepEqual(
      own.map((e) => e.entityId),
      ['e-parent'],
    );
    const kid = await store<EntityRecord[]>('listEntities', [{ customerId: 'cust-x', childId: 'kid' }], name);
    assert.deepEqual(
      kid.map((e) => e.entityId),
      ['e-child'],
    );
    const all = await store<EntityRecord[]>('listEntities', [{ customerId: 'cust-x', allChildren: true }], name);
    assert.deepEqual(all.map((e) => e.entityId).sort(), ['e-child', 'e-parent']);
    assert.equal((await store<EntityRecord>('findEntityByDocument', ['d-2'], name)).entityId, 'e-child');
    assert.equal(await store('findEntityByDocument', ['nope'], name), null);

    const check = (id: string, at: number): CheckRecord => ({
      checkId: id,
      entityId: 'e-parent',
      owner: { customerId: 'cust-x', childId: null },
      checkStatus: 'CHECKING',
      linkId: `link-${id}`,
      linkExpiresAt: now + 60_000,
      flowId: 'manual',
      successRedirectURL: null,
      errorRedirectURL: null,
      customerRef: null,
      applicationRef: null,
      channelRef: null,
      provider: null,
      channel: null,
      createdAt: at,
      flowFinishedAt: null,
      outcome: null,
      completedAt: null,
      reprocessedAt: null,
      reprocessCount: 0,
      expiresAt: now + 60_000,
    });
    await store('putCheck', [check('c-old', now - 10)], name);
    await store('putCheck', [check('c-new', now)], name);
    await store('putCheck', [{ ...check('c-old', now - 10), checkStatus: 'CHECKED_FAILED' }], name);
    const checks = await store<CheckRecord[]>('listChecks', ['e-parent'], name);
    assert.deepEqual(
      checks.map((c) => [c.checkId, c.checkStatus]),
      [
        ['c-new', 'CHECKING'],
        ['c-old', 'CHECKED_FAILED'],
      ],
    );
    assert.equal((await store<CheckRecord>('getCheckByLink', ['link-c-new'], name)).checkId, 'c-new');

    const msg = (id: string, customerRef: string): OutboxMessage => ({
      id,
      customerRef,
      to: '+61 ******678',
      recipientName: null,
      senderName: null,
      messageTemplateId: null,
      text: 'hi',
      link: 'https://x.test/sandbox/flow/l',
      channel: null,
      createdAt: now,
      expiresAt: now + 60_000,
    });
    await store('addMessage', [msg('m1', 'ref-1')], name);
    await store('addMessage', [msg('m2', 'ref-2')], name);
    assert.deepEqual(
      (await store<OutboxMessage[]>('listMessages', ['ref-1'], name)).map((m) => m.id),
      ['m1'],
    );
  });

  it('forgets records once they expire', async (t) => {
    const name = `ttl-${Date.now()}`;
    const now = realNow(); // workerd's clock, which a clock-ahead run does not move
    const rec: EntityRecord = {
      entityId: 'e-short',
      owner: { customerId: 'cust-x', childId: null },
      entity: {
        entityId: 'e-short',
        name: { familyName: 'Brief' },
        identityDocs: [{ documentId: 'd-short', idType: 'X', country: 'AUS' }],
      },
      channel: null,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + 1500,
    };
    await store('putEntity', [rec], name);
    assert.equal((await store<EntityRecord>('getEntity', ['e-short'], name)).entityId, 'e-short');
    // Past the expiry on the object's clock (the sandbox's `clock`, moved in its isolate), not by waiting for it.
    await store('moveClock', [rec.expiresAt + 20 - realNow()], name);
    t.after(() => store('moveClock', [0], name));
    assert.equal(await store('getEntity', ['e-short'], name), null);
    assert.equal(await store('findEntityByDocument', ['d-short'], name), null);
    assert.deepEqual(await store('listEntities', [{ customerId: 'cust-x', childId: null }], name), []);
    // Expired rows are skipped at once and deleted by the next write's sweep (or the alarm's).
    assert.deepEqual(await store('stats', [], name), { entities: 1, documents: 1, checks: 0, messages: 0 });
    const m: OutboxMessage = {
      id: 'm-sweep',
      customerRef: 'r',
      to: '***123',
      recipientName: null,
      senderName: null,
      messageTemplateId: null,
      text: 't',
      link: 'l',
      channel: null,
      createdAt: realNow(),
      expiresAt: realNow() + 60_000,
    };
    await store('addMessage', [m], name);
    assert.deepEqual(await store('stats', [], name), { entities: 0, documents: 0, checks: 0, messages: 1 });
  });

  it('caps entities per owner: one owner filling its share never pushes out another owner', async () => {
    const name = `cap-${Date.now()}`;
    const now = realNow();
    const entity = (id: string, customerId: string, childId: string | null, at: number): EntityRecord => ({
      entityId: id,
      owner: { customerId, childId },
      entity: { entityId: id, name: { familyName: 'Capped' } },
      channel: null,
      createdAt: at,
      updatedAt: at,
      expiresAt: now + 600_000,
    });
    const others = [entity('other-child', 'cust-c', 'child-1', now - 10), entity('other-parent', 'cust-c', null, now - 10)];
    const flood = Array.from({ length: MAX_ENTITIES_PER_OWNER + 5 }, (_, i) =>
      entity(`flood-${String(i).padStart(5, '0')}`, 'cust-c', 'child-2', now + i),
    );
    const memory = new MemoryStore();
    for (const r of [...others, ...flood]) await memory.putEntity(r);
    for (let i = 0; i < others.length; i += 1) await store('putEntity', [others[i]], name);
    for (let i = 0; i < flood.length; i += 50) await Promise.all(flood.slice(i, i + 50).map((r) => store('putEntity', [r], name)));
    for (const [label, get, list] of [
      ['memory', (id: string) => memory.getEntity(id), (scope: object) => memory.listEntities(scope as never)],
      [
        'durable',
        (id: string) => store<EntityRecord | null>('getEntity', [id], name),
        (scope: object) => store<EntityRecord[]>('listEntities', [scope], name),
      ],
    ] as const) {
      assert.equal((await get('other-child'))?.entityId, 'other-child', `${label}: another child's entity stays`);
      assert.equal((await get('other-parent'))?.entityId, 'other-parent', `${label}: the parent's own entity stays`);
      const left = (await list({ customerId: 'cust-c', childId: 'child-2' })).map((r) => r.entityId);
      assert.equal(left.length, MAX_ENTITIES_PER_OWNER, `${label}: the flooding owner keeps its cap`);
      assert.equal(await get('flood-00000'), null, `${label}: its oldest went first`);
      assert.ok(left.includes(flood.at(-1)!.entityId), `${label}: its newest is kept`);
    }
  });
});
