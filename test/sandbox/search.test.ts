/** Contract: entity search (spec 4.3), its visibility matrix, and the check look-ups. */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { Entity } from '../../worker/vendors/idv/schemas';
import { freshSandbox } from '../support/vendor-sandbox';
import { assertErrorObject, childA, childB, client, env, other, parent, raw, rejects, ULID, type Creds } from './helpers';

beforeEach(() => freshSandbox());

async function create(creds: Creds, entity: Entity, e = env): Promise<string> {
  const link = await client(creds, e).onboardingUrl({ entity });
  return link.entity.entityId!;
}

const smith = (givenName: string, extra: Partial<Entity> = {}): Entity => ({ name: { givenName, familyName: 'Smith' }, ...extra });

describe('search: minimum criteria, enums, query parameters', () => {
  it('needs familyName plus givenName, or familyName plus one identity document', async () => {
    const c = client(parent);
    await rejects(c.search({ name: { familyName: '', givenName: 'Ann' } }), 400, 'SEARCH_CRITERIA', 'name.familyName');
    await rejects(c.search({ dateOfBirth: { dateOfBirth: '1990-01-01' } }), 400, 'SEARCH_CRITERIA', 'name.familyName');
    await rejects(c.search({ name: { familyName: 'Smith' } }), 400, 'SEARCH_CRITERIA', 'name.givenName');
    await rejects(
      c.search({ name: { familyName: 'Smith' }, identityDocs: [{ idType: 'PASSPORT', country: 'AUS' }] }),
      400,
      'SEARCH_CRITERIA',
    );
    assert.equal((await c.search({ name: { familyName: 'Smith', givenName: 'Ann' } })).totalEntitiesMatched, 0);
    assert.equal(
      (await c.search({ name: { familyName: 'Smith' }, identityDocs: [{ idType: 'PASSPORT', country: 'AUS', idNumber: 'X1' }] }))
        .totalEntitiesMatched,
      0,
    );
  });

  it('restricts entityType and gender to the spec’s enums', async () => {
    const c = client(parent);
    const base = { name: { familyName: 'Smith', givenName: 'Ann' } };
    await rejects(c.search({ ...base, entityType: 'PERSON' }), 400, 'INVALID_REQUEST', 'entityType');
    await rejects(c.search({ ...base, gender: 'X' }), 400, 'INVALID_REQUEST', 'gender');
    for (const entityType of ['INDIVIDUAL', 'TRUST', 'ORGANISATION']) await c.search({ ...base, entityType });
    for (const gender of ['U', 'F', 'M', 'O']) await c.search({ ...base, gender });
  });

  it('answers a fresh ULID requestId every time', async () => {
    const c = client(parent);
    const q = { name: { familyName: 'Smith', givenName: 'Ann' } };
    const a = await c.search(q);
    const b = await c.search(q);
    assert.match(a.requestId, ULID);
    assert.match(b.requestId, ULID);
    assert.notEqual(a.requestId, b.requestId);
  });

  it('refuses bad query parameters with 400', async () => {
    const body = { name: { familyName: 'Smith', givenName: 'Ann' } };
    for (const [q, loc] of [
      ['resultLimit=abc', 'query.resultLimit'],
      ['resultLimit=0', 'query.resultLimit'],
      ['child=yes', 'query.child'],
      ['onlyEntityIds=1', 'query.onlyEntityIds'],
      ['searchType=fuzzy', 'query.searchType'],
    ]) {
      const r = await raw('POST', `/v2/kyc/entity/search?${q}`, { creds: parent, body });
      assert.equal(r.status, 400, q);
      assertErrorObject(r.body, 'INVALID_REQUEST', loc);
    }
  });

  it('applies resultLimit and the hard cap, counting every match in totalEntitiesMatched', async () => {
    const capped = { ...env, SANDBOX_SEARCH_CAP: '3' };
    for (let i = 0; i < 5; i++) await create(parent, smith(`Ann${'a'.repeat(i)}`), capped);
    const c = client(parent, capped);
    const q = { name: { familyName: 'Smith', givenName: 'Ann' } };
    const limited = await c.search(q, { resultLimit: 2 });
    assert.equal(limited.entitySearchResults!.length, 2);
    assert.equal(limited.totalEntitiesMatched, 5);
    const hard = await c.search(q, { resultLimit: 10 });
    assert.equal(hard.entitySearchResults!.length, 3, 'the hard cap wins over a larger resultLimit');
    assert.equal(hard.totalEntitiesMatched, 5);
    assert.equal((await c.search(q)).entitySearchResults!.length, 3);
    assert.equal((await client(parent).search(q)).entitySearchResults!.length, 5, 'default cap 50');
  });

  it('searchType=none applies no scoring: no confidence', async () => {
    await create(parent, smith('Ann'));
    const r = await client(parent).search({ name: { familyName: 'Smith', givenName: 'Ann' } }, { searchType: 'none' });
    assert.equal(r.entitySearchResults!.length, 1);
    assert.equal(r.entitySearchResults![0]!.confidence, undefined);
    assert.ok(r.entitySearchResults![0]!.entity, 'still the whole entity for the owner');
  });

  it('onlyEntityIds returns ids and confidence only, even to the owner', async () => {
    const id = await create(parent, smith('Ann'));
    const r = await client(parent).search({ name: { familyName: 'Smith', givenName: 'Ann' } }, { onlyEntityIds: true });
    assert.deepEqual(r.entitySearchResults, [{ entityId: id, confidence: 50 }]);
  });
});

describe('search: candidates and the confidence score', () => {
  it('scores deterministically: family 30, given 20 (variant 15, initial 8), middle 5, dob 20 (year 8), address 10, document 15', async () => {
    const full = await create(parent, {
      name: { givenName: 'William', middleName: 'Henry', familyName: 'Smith' },
      dateOfBirth: { dateOfBirth: '1980-04-05' },
      addresses: [{ country: 'AUS', streetNumber: '12', streetName: 'Example', postalCode: '2000' }],
      identityDocs: [{ idType: 'PASSPORT', country: 'AUS', idNumber: 'PA 123 456' }],
    });
    const c = client(parent);
    const conf = async (criteria: Entity) => {
      const r = await c.search(criteria);
      return r.entitySearchResults!.find((x) => x.entityId === full)?.confidence;
    };
    const name = (givenName: string, extra: Partial<Entity['name']> = {}) => ({ name: { familyName: 'Smith', givenName, ...extra } });
    assert.equal(await conf(name('William')), 50);
    assert.equal(await conf(name('Bill')), 45);
    assert.equal(await conf(name('W')), 38);
    assert.equal(await conf(name('Walter')), 30);
    assert.equal(await conf(name('William', { middleName: 'Henry' })), 55);
    assert.equal(await conf(name('William', { middleName: 'H' })), 53);
    assert.equal(await conf({ ...name('William'), dateOfBirth: { dateOfBirth: '1980-04-05' } }), 70);
    assert.equal(await conf({ ...name('William'), dateOfBirth: { dateOfBirth: '1980-12-31' } }), 58);
    assert.equal(
      await conf({ ...name('William'), addresses: [{ country: 'AU', streetNumber: '12', streetName: 'example', postalCode: '2000' }] }),
      60,
    );
    assert.equal(await conf({ ...name('William'), addresses: [{ country: 'AUS' }] }), 52);
    assert.equal(await conf({ ...name('William'), identityDocs: [{ idType: 'passport', country: 'AU', idNumber: 'pa123456' }] }), 65);
    assert.equal(
      await conf({
        name: { givenName: 'William', middleName: 'Henry', familyName: 'Smith' },
        dateOfBirth: { dateOfBirth: '1980-04-05' },
        addresses: [{ country: 'AUS', streetNumber: '12', streetName: 'Example', postalCode: '2000' }],
        identityDocs: [{ idType: 'PASSPORT', country: 'AUS', idNumber: 'PA123456' }],
      }),
      100,
    );
  });

  it('normalises family names (case, accents, spaces, hyphens, apostrophes)', async () => {
    const obrien = await create(parent, { name: { givenName: 'Sean', familyName: "O'Brien" } });
    const muller = await create(parent, { name: { givenName: 'Jörg', familyName: 'Müller' } });
    const c = client(parent);
    assert.deepEqual(
      (await c.search({ name: { familyName: 'obrien', givenName: 'sean' } })).entitySearchResults!.map((r) => [r.entityId, r.confidence]),
      [[obrien, 50]],
    );
    assert.deepEqual(
      (await c.search({ name: { familyName: 'MULLER', givenName: 'Jorg' } })).entitySearchResults!.map((r) => [r.entityId, r.confidence]),
      [[muller, 50]],
    );
  });

  it('finds a candidate by identity document even under another family name, and orders by confidence', async () => {
    const byDoc = await create(parent, {
      name: { givenName: 'Ann', familyName: 'Jones' },
      identityDocs: [{ idType: 'PASSPORT', country: 'AUS', idNumber: 'N1' }],
    });
    const byName = await create(parent, smith('Ann'));
    await create(parent, { name: { givenName: 'Ann', familyName: 'Brown' } });
    const r = await client(parent).search({
      name: { familyName: 'Smith', givenName: 'Ann' },
      identityDocs: [{ idType: 'PASSPORT', country: 'AUS', idNumber: 'N1' }],
    });
    assert.deepEqual(
      r.entitySearchResults!.map((x) => [x.entityId, x.confidence]),
      [
        [byName, 50],
        [byDoc, 35],
      ],
    );
    assert.equal(r.totalEntitiesMatched, 2);
  });

  it('never returns scan contents', async () => {
    await create(
      parent,
      smith('Ann', {
        identityDocs: [{ idType: 'PASSPORT', country: 'AUS', docScan: [{ scanData: 'iVBORw0KGgo=', scanMIME: 'image/png' }] }],
      }),
    );
    const r = await client(parent).search({ name: { familyName: 'Smith', givenName: 'Ann' } });
    const scan = r.entitySearchResults![0]!.entity!.identityDocs![0]!.docScan![0]!;
    assert.equal(scan.scanData, undefined);
    assert.equal(scan.scanMIME, 'image/png');
  });
});

describe('visibility matrix: parent / child-a / child-b / another customer', () => {
  async function world() {
    return {
      parent: await create(parent, smith('Ann')),
      childA: await create(childA, smith('Ann')),
      childB: await create(childB, smith('Ann')),
      other: await create(other, smith('Ann')),
    };
  }
  const q = { name: { familyName: 'Smith', givenName: 'Ann' } };
  const view = (r: { entitySearchResults?: { entityId: string; confidence?: number; entity?: unknown }[] }, ids: Record<string, string>) =>
    Object.fromEntries(
      (r.entitySearchResults ?? []).map((x) => [Object.keys(ids).find((k) => ids[k] === x.entityId), x.entity ? 'full' : 'id+confidence']),
    );

  it('parent without child=true sees only its own entities, in full', async () => {
    const ids = await world();
    assert.deepEqual(view(await client(parent).search(q), ids), { parent: 'full' });
  });

  it('parent with child=true also sees its children’s, as id and confidence only', async () => {
    const ids = await world();
    const r = await client(parent).search(q, { child: true });
    assert.deepEqual(view(r, ids), { parent: 'full', childA: 'id+confidence', childB: 'id+confidence' });
    for (const x of r.entitySearchResults!) assert.equal(x.confidence, 50);
    assert.equal(r.totalEntitiesMatched, 3);
  });

  it('each child sees only its own; siblings never', async () => {
    const ids = await world();
    assert.deepEqual(view(await client(childA).search(q), ids), { childA: 'full' });
    assert.deepEqual(view(await client(childB).search(q), ids), { childB: 'full' });
  });

  it('another customer sees only its own', async () => {
    const ids = await world();
    assert.deepEqual(view(await client(other).search(q), ids), { other: 'full' });
  });

  it('child=true is for parents, and only where it is enabled', async () => {
    await world();
    await rejects(client(childA).search(q, { child: true }), 403, 'CHILD_SEARCH_NOT_ALLOWED', 'query.child');
    await rejects(client(other).search(q, { child: true }), 403, 'CHILD_SEARCH_NOT_ALLOWED', 'query.child');
  });

  it('check look-ups by entity and by document: owner and parent yes, sibling and other customer 404', async () => {
    const link = await client(childA).onboardingUrl({
      entity: { ...smith('Ann'), identityDocs: [{ idType: 'PASSPORT', country: 'AUS', idNumber: 'Q1' }] },
    });
    const entityId = link.entity.entityId!;
    const documentId = link.entity.identityDocs![0]!.documentId!;
    for (const creds of [childA, parent]) {
      const byEntity = await raw('GET', `/v2/kyc/entity/${entityId}/checks`, { creds });
      assert.equal(byEntity.status, 200);
      assert.equal(byEntity.body.entityId, entityId);
      assert.match(byEntity.body.requestId, ULID);
      assert.equal(byEntity.body.checks.length, 1);
      assert.equal(byEntity.body.checks[0].checkStatus, 'CHECKING');
      assert.equal(byEntity.body.checks[0].name, undefined);
      const byDoc = await raw('GET', `/v2/kyc/document/${documentId}/checks`, { creds });
      assert.equal(byDoc.status, 200);
      assert.equal(byDoc.body.documentId, documentId);
      assert.equal(byDoc.body.entityId, entityId);
      assert.deepEqual(byDoc.body.checks, byEntity.body.checks);
      assert.ok(!JSON.stringify(byDoc.body).includes('Smith'), 'check look-ups carry no personal data');
    }
    for (const creds of [childB, other]) {
      for (const path of [`/v2/kyc/entity/${entityId}/checks`, `/v2/kyc/document/${documentId}/checks`]) {
        const r = await raw('GET', path, { creds });
        assert.equal(r.status, 404, path);
        assertErrorObject(r.body, 'NOT_FOUND');
      }
    }
    const none = await raw('GET', `/v2/kyc/document/${crypto.randomUUID()}/checks`, { creds: parent });
    assert.equal(none.status, 404);
  });

  it('a parent can follow a child-search id to the child’s check results', async () => {
    const id = await create(childB, smith('Ann'));
    const found = await client(parent).search(q, { child: true });
    assert.equal(found.entitySearchResults![0]!.entityId, id);
    const checks = await raw('GET', `/v2/kyc/entity/${id}/checks`, { creds: parent });
    assert.equal(checks.status, 200);
    assert.equal(checks.body.checks[0].checkStatus, 'CHECKING');
  });
});
