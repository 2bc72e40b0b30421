/**
 * Returning people over `/v1` in workerd (real KV, D1 with migrations/,
 * Durable Objects), the sandbox as the vendor: `POST /v1/entities/search`
 * shows an entity only to the partner one of whose verifications holds it,
 * refuses criteria below the spec's minimum, and `POST /v1/verifications`
 * takes `entityId` only from the partner's own verifications, sending it to
 * the vendor so the person stays one entity.
 *
 * `gamma` shares alpha's vendor account (same child ID and key): the vendor
 * shows it alpha's entities in full, so only the worker's own owner check
 * keeps them from gamma. `beta` has a vendor account of its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildRecord, writeRecord, type RegistryStore } from '../../worker/partners/admin';
import { DEV_SEALING_KEY, publicJwk } from '../../worker/partners/sealing';
import { newServerKey, serverKeyHash } from '../../worker/server-api/keys';
import { entityKey, listIndex, ownedEntities, writeIndex, type IndexRow } from '../../worker/verifications/verification-index';
import { adultDateOfBirth } from '../support/dates';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';

const PARTNERS = {
  alpha: { origin: 'https://alpha.example', child: 'demo-child-a', key: 'sandbox-key-a', serverKey: newServerKey('test') },
  beta: { origin: 'https://beta.example', child: 'demo-child-b', key: 'sandbox-key-b', serverKey: newServerKey('test') },
  gamma: { origin: 'https://gamma.example', child: 'demo-child-a', key: 'sandbox-key-a', serverKey: newServerKey('test') },
} as const;
type Name = keyof typeof PARTNERS;

// A family name no other test's person has.
const FAMILY = `Searchwell${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;
const PERSON = {
  name: { givenName: 'Ada', familyName: FAMILY },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};
const PERSON_FIELDS = new Set(['entityId', 'name', 'dateOfBirth', 'addresses', 'identityDocs']);

let worker: MiniflareWorker;

before(async () => {
  worker = await startMiniflareWorker();
  const store: RegistryStore = {
    get: (k) => worker.kv.get(k),
    put: (k, v) => worker.kv.put(k, v),
    delete: (k) => worker.kv.delete(k),
    list: async (p) => (await worker.kv.list({ prefix: p })).keys.map((k) => k.name),
  };
  for (const [id, p] of Object.entries(PARTNERS)) {
    const record = await buildRecord(
      id,
      { displayName: id, origins: [p.origin], childId: p.child, apiKey: p.key, serverKeyHashes: [await serverKeyHash(p.serverKey)] },
      publicJwk(DEV_SEALING_KEY),
      { sandbox: true },
    );
    await writeRecord(store, record);
  }
});
after(async () => {
  await worker?.dispose();
});

function v1(name: Name, path: string, body?: unknown) {
  return fetch(worker.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      Authorization: `Bearer ${PARTNERS[name].serverKey}`,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

interface SearchAnswer {
  requestId: string;
  totalEntitiesMatched?: number;
  results: { entityId: string; confidence?: number; entity?: Record<string, unknown> }[];
}

async function search(name: Name, criteria: unknown, query = ''): Promise<SearchAnswer> {
  const res = await v1(name, `/v1/entities/search${query}`, criteria);
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('Cache-Control'), 'no-store');
  return (await res.json()) as SearchAnswer;
}

/** A verification of `name`, its link made by the page with the client secret; its vendor entity id. */
async function linked(name: Name, extra: Record<string, unknown> = {}): Promise<{ verificationId: string; entityId: string }> {
  const made = await v1(name, '/v1/verifications', { customerRef: `acct-${crypto.randomUUID()}`, ...extra });
  assert.equal(made.status, 201, await made.clone().text());
  const { verificationId, clientSecret } = (await made.json()) as { verificationId: string; clientSecret: string };
  const link = await fetch(`${worker.url}/api/onboarding-link`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: PARTNERS[name].origin },
    body: JSON.stringify({ ...PERSON, clientSecret }),
  });
  assert.equal(link.status, 200, await link.clone().text());
  const read = (await (await v1(name, `/v1/verifications/${verificationId}`)).json()) as { entityId?: string };
  assert.ok(read.entityId, 'the link gave the verification its entity');
  return { verificationId, entityId: read.entityId };
}

const CRITERIA = { name: { familyName: FAMILY, givenName: 'Ada' }, dateOfBirth: { dateOfBirth: PERSON.dateOfBirth } };
let alphas: { verificationId: string; entityId: string };

describe('POST /v1/entities/search', () => {
  before(async () => {
    alphas = await linked('alpha');
  });

  it("shows the owner its entity (the person allow-list, no scans or extra data), best match first, with the vendor's confidence", async () => {
    const answer = await search('alpha', CRITERIA);
    assert.match(answer.requestId, /\S/);
    const hit = answer.results.find((r) => r.entityId === alphas.entityId);
    assert.ok(hit, JSON.stringify(answer));
    assert.equal(typeof hit.confidence, 'number');
    assert.ok(hit.entity, 'the owner sees the entity');
    assert.equal(hit.entity.entityId, alphas.entityId);
    assert.deepEqual(hit.entity.name, { givenName: 'Ada', familyName: FAMILY });
    for (const key of Object.keys(hit.entity)) assert.ok(PERSON_FIELDS.has(key), `entity.${key} is not in the allow-list`);
  });

  it('onlyEntityIds=true: ids and confidence only, even for the owner', async () => {
    const answer = await search('alpha', CRITERIA, '?onlyEntityIds=true&resultLimit=5');
    const hit = answer.results.find((r) => r.entityId === alphas.entityId);
    assert.ok(hit);
    assert.equal(hit.entity, undefined);
  });

  it("another partner on the same vendor account gets nothing of it, not even the id and confidence (the worker's owner check, not the vendor's)", async () => {
    const answer = await search('gamma', CRITERIA);
    assert.ok(!answer.results.some((r) => r.entityId === alphas.entityId), JSON.stringify(answer));
    assert.ok(!JSON.stringify(answer).includes(FAMILY), 'no personal data in the answer');
    assert.equal(answer.totalEntitiesMatched, answer.results.length, 'nor the count of what was left out');
  });

  it("the owner's own redacted match is left out", async () => {
    const mine = await linked('alpha');
    assert.ok((await search('alpha', CRITERIA)).results.some((r) => r.entityId === mine.entityId));
    assert.equal((await v1('alpha', `/v1/verifications/${mine.verificationId}/redact`, {})).status, 200);
    assert.ok(!(await search('alpha', CRITERIA)).results.some((r) => r.entityId === mine.entityId));
  });

  it("a partner with its own vendor account sees nothing of the other's person", async () => {
    const answer = await search('beta', CRITERIA);
    assert.ok(!JSON.stringify(answer).includes(FAMILY));
    assert.ok(answer.results.every((r) => r.entity === undefined));
  });

  it('criteria below the minimum are a 400 naming what is missing', async () => {
    const dob = { dateOfBirth: PERSON.dateOfBirth };
    const cases: [unknown, string[]][] = [
      [{ name: { familyName: FAMILY } }, ['name.givenName', 'dateOfBirth', 'identityDocs']],
      [{ name: { givenName: 'Ada' }, dateOfBirth: dob }, ['name.familyName']],
      [
        { name: { familyName: FAMILY }, identityDocs: [{ idType: 'PASSPORT', country: 'AUS' }] },
        ['name.givenName', 'dateOfBirth', 'identityDocs'],
      ],
      [{ dateOfBirth: dob }, ['name.familyName', 'name.givenName', 'identityDocs']],
      // Names are not enumerated letter by letter, nor searched without a date of birth.
      [{ name: { familyName: 'S', givenName: 'A' }, dateOfBirth: dob }, ['name.familyName', 'name.givenName', 'identityDocs']],
      [{ name: { familyName: FAMILY, givenName: 'Ada' } }, ['dateOfBirth', 'identityDocs']],
    ];
    for (const [criteria, fields] of cases) {
      const res = await v1('alpha', '/v1/entities/search', criteria);
      const body = (await res.json()) as { errorCode: string; issues: { issueLocation: string }[] };
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(body.errorCode, 'VALIDATION_FAILED');
      assert.deepEqual(
        body.issues.map((i) => i.issueLocation),
        fields,
      );
    }
    // A family name with one whole document is enough.
    await search('alpha', { name: { familyName: FAMILY }, identityDocs: [{ idType: 'PASSPORT', country: 'AUS', idNumber: 'N1234567' }] });
  });

  it('a bad field or query is a 400 naming it', async () => {
    const res = await v1('alpha', '/v1/entities/search?resultLimit=51', CRITERIA);
    assert.equal(res.status, 400);
    assert.deepEqual(
      ((await res.json()) as { issues: { issueLocation: string }[] }).issues.map((i) => i.issueLocation),
      ['resultLimit'],
    );
    const extra = await v1('alpha', '/v1/entities/search', { ...CRITERIA, extraData: [] });
    assert.equal(extra.status, 400);
  });
});

describe('POST /v1/verifications with entityId', () => {
  it("a returning person: the link is made for the earlier verification's entity (the vendor got it), not a new one", async () => {
    const again = await linked('alpha', { entityId: alphas.entityId });
    assert.notEqual(again.verificationId, alphas.verificationId);
    assert.equal(again.entityId, alphas.entityId, 'one person, one entity at the vendor');
  });

  it("another partner's entity is 404 NOT_FOUND, even on the same vendor account; so is one nobody has", async () => {
    for (const [name, entityId] of [
      ['gamma', alphas.entityId],
      ['beta', alphas.entityId],
      ['alpha', `${alphas.entityId}x`],
    ] as const) {
      const res = await v1(name, '/v1/verifications', { customerRef: 'acct-returning', entityId });
      const body = (await res.json()) as { errorCode: string; issues: { issueLocation: string }[] };
      assert.equal(res.status, 404, `${name}: ${JSON.stringify(body)}`);
      assert.equal(body.errorCode, 'NOT_FOUND');
      assert.deepEqual(
        body.issues.map((i) => i.issueLocation),
        ['entityId'],
      );
    }
  });

  it('after the owner redacts every verification that held it, the entity is no longer its own', async () => {
    const only = await linked('beta');
    assert.equal((await v1('beta', `/v1/verifications/${only.verificationId}/redact`, {})).status, 200);
    const res = await v1('beta', '/v1/verifications', { customerRef: 'acct-returning', entityId: only.entityId });
    assert.equal(res.status, 404);
  });
});

describe('test and live never mix in a shared D1 (docs/operations.md: one D1 per account)', () => {
  // This deployment is a sandbox one (its keys are kyc_sk_test_…). A live deployment sharing the D1 writes its rows
  // with livemode 1: the index's own functions, as that deployment calls them, stand in for it.
  it("a live deployment's row and entity are neither listed nor owned under a test key, and a test row neither under a live key", async () => {
    /* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- Miniflare's D1 proxy is the binding the worker itself gets */
    const db = await worker.mf.getD1Database('DB');
    const liveEntity = `live-entity-${crypto.randomUUID()}`;
    const liveId = `01LIVE${crypto.randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase()}`;
    const ours = await db.prepare('SELECT * FROM verifications WHERE id = ?').bind(alphas.verificationId).first<IndexRow>();
    assert.ok(ours, "alpha's row is in the index");
    const liveRow: IndexRow = { ...ours, id: liveId, livemode: 1 };
    await writeIndex(db, liveRow, await entityKey(liveEntity));

    const listed = (await (await v1('alpha', '/v1/verifications?limit=100')).json()) as { data: { verificationId: string }[] };
    assert.ok(listed.data.length > 0, 'the test key lists its own rows');
    assert.ok(!listed.data.some((r) => r.verificationId === liveId), 'a live row was listed under a test key');
    const create = await v1('alpha', '/v1/verifications', { customerRef: 'acct-live', entityId: liveEntity });
    assert.equal(create.status, 404, 'a live entity counted as owned under a test key');

    // The other way: what a live deployment sees of this one's test rows and entities.
    const liveList = await listIndex(db, 'alpha', true, { limit: 100 });
    assert.deepEqual(
      liveList.map((r) => r.id),
      [liveId],
    );
    assert.deepEqual([...(await ownedEntities(db, 'alpha', true, [alphas.entityId, liveEntity]))], [liveEntity]);
    assert.deepEqual([...(await ownedEntities(db, 'alpha', false, [alphas.entityId, liveEntity]))], [alphas.entityId]);
    /* eslint-enable @typescript-eslint/no-unsafe-class-instance-assignment */
  });
});

it('no log line names the person searched for or an entity id', () => {
  const lines = worker.logs.join('\n');
  assert.ok(!lines.includes(FAMILY), 'a criterion was logged');
  assert.ok(!lines.includes(alphas.entityId), 'an entity id was logged');
});
