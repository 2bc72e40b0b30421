/**
 * Top-level `entityId` in the onboarding-url body (what the vendor's public
 * clients send to make a link for an existing entity), under the spec's
 * ownership rules (1.5): the owner, or the owner's parent customer, gets a
 * link for that entity; a sibling child or another customer is refused with
 * an ErrorObject naming `entityId`, and no entity is made in its place.
 * Other top-level fields the sandbox does not know are refused by name.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryStore } from '../../sandbox/store';
import { assertErrorObject, childA, childB, client, other, parent, person, raw, type Creds } from './helpers';

const entities = async () => (await memoryStore.stats()).entities;
const linkFor = (creds: Creds, body: object) => raw('POST', '/idv/v2/idvalidate/onboarding-url', { creds, body });

describe('onboarding-url with a top-level entityId', () => {
  it('gives the owner a link for its own entity, and makes no new entity', async () => {
    const first = await client(childA).onboardingUrl(person('Owner'));
    const id = first.entity.entityId!;
    const before = await entities();
    const again = await linkFor(childA, { entityId: id, consent: true });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.entity.entityId, id);
    assert.equal(again.body.entity.name.familyName, 'Owner', 'the existing entity, unchanged');
    assert.notEqual(again.body.url, first.url, 'a new link');
    assert.equal(await entities(), before);
  });

  it('gives the parent customer a link for its child’s entity', async () => {
    const id = (await client(childA).onboardingUrl(person('Childs'))).entity.entityId!;
    const before = await entities();
    const r = await linkFor(parent, { entityId: id });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.entity.entityId, id);
    assert.equal(await entities(), before);
  });

  it('refuses a sibling child, another customer and an unknown id, naming entityId, and makes no entity', async () => {
    const id = (await client(childA).onboardingUrl(person('Sibling'))).entity.entityId!;
    for (const [creds, entityId] of [
      [childB, id],
      [other, id],
      [childA, crypto.randomUUID()],
    ] as const) {
      const before = await entities();
      const r = await linkFor(creds, { entityId, consent: true });
      assert.equal(r.status, 404);
      assertErrorObject(r.body, 'NOT_FOUND', 'entityId');
      assert.ok(!JSON.stringify(r.body).includes(entityId), 'the id is not repeated');
      assert.equal(await entities(), before, 'no new entity');
    }
  });

  it('changing the entity stays the owner’s: the parent may link, not update, a child’s entity', async () => {
    const id = (await client(childA).onboardingUrl(person('Kept'))).entity.entityId!;
    const r = await linkFor(parent, { entityId: id, entity: { name: { familyName: 'Changed' } } });
    assert.equal(r.status, 404);
    assertErrorObject(r.body, 'NOT_FOUND', 'entity.entityId');
    const own = await linkFor(childA, { entityId: id, entity: { entityId: id, name: { familyName: 'Changed' } } });
    assert.equal(own.status, 200);
    assert.equal(own.body.entity.name.familyName, 'Changed');
  });

  it('refuses an entityId that is not a non-empty string, or names another entity than entity.entityId', async () => {
    const id = (await client(childA).onboardingUrl(person('Typed'))).entity.entityId!;
    for (const entityId of [42, '', '   ', null]) {
      const r = await linkFor(childA, { entityId });
      assert.equal(r.status, 400, JSON.stringify(entityId));
      assertErrorObject(r.body, undefined, 'entityId');
    }
    const r = await linkFor(childA, { entityId: id, entity: { entityId: crypto.randomUUID() } });
    assert.equal(r.status, 400);
    assertErrorObject(r.body, undefined, 'entityId');
  });
});

describe('onboarding-url with unknown top-level fields', () => {
  it('refuses each by name (never its value), before making anything', async () => {
    const before = await entities();
    const r = await linkFor(childA, { ...person('Unknown'), entityID: 'x', 'weird key!': 'secret-value' });
    assert.equal(r.status, 400);
    assertErrorObject(r.body, 'INVALID_REQUEST', 'entityID');
    assertErrorObject(r.body, undefined, '<unknown>');
    assert.ok(!JSON.stringify(r.body).includes('secret-value'));
    assert.equal(await entities(), before);
  });
});
