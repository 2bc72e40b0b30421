/** Contract: credentials (spec section 5) and the ErrorObject on every refusal. */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { freshSandbox } from '../support/vendor-sandbox';
import { assertErrorObject, childA, childB, client, other, parent, person, raw, rejects } from './helpers';
import { nodeEnv } from '../support/node-env';

beforeEach(() => freshSandbox());

describe('sandbox credentials', () => {
  it('ruok answers OK for the parent, each child and another customer', async () => {
    for (const creds of [parent, childA, childB, other]) {
      assert.deepEqual(await client(creds).ruok(), { status: 'OK' });
    }
  });

  it('works with the documented defaults when SANDBOX_CREDENTIALS is unset', async () => {
    const e = nodeEnv();
    assert.deepEqual(await client(parent, e).ruok(), { status: 'OK' });
    assert.deepEqual(await client(childA, e).ruok(), { status: 'OK' });
    assert.deepEqual(await client(childB, e).ruok(), { status: 'OK' });
    await rejects(client(other, e).ruok(), 401, 'INVALID_CREDENTIALS');
  });

  it('accepts every key of a rotating customer', async () => {
    assert.deepEqual(await client({ ...other, apiKey: 'other-key-old' }).ruok(), { status: 'OK' });
  });

  it('refuses missing credentials with a 401 ErrorObject naming the header', async () => {
    const noKey = await raw('GET', '/v2/kyc/ruok', { creds: { customerId: 'demo-customer' } });
    assert.equal(noKey.status, 401);
    assertErrorObject(noKey.body, 'MISSING_CREDENTIALS', 'header.api_key');
    const noCustomer = await raw('GET', '/v2/kyc/ruok', { creds: { apiKey: 'sandbox-key' } });
    assert.equal(noCustomer.status, 401);
    assertErrorObject(noCustomer.body, 'MISSING_CREDENTIALS', 'header.X-Service-CustomerID');
  });

  it('refuses wrong combinations of key, customer and child', async () => {
    const wrong = [
      { ...parent, apiKey: 'nope' },
      { ...parent, apiKey: 'sandbox-key-a' }, // a child's key without the child header
      { ...childA, apiKey: 'sandbox-key' }, // the parent's key with a child header
      { ...childA, apiKey: 'sandbox-key-b' }, // a sibling's key
      { ...parent, childId: 'demo-child-z' }, // unknown child
      { ...other, customerId: 'demo-customer' }, // another customer's key
      { customerId: 'nobody', apiKey: 'sandbox-key' },
    ];
    for (const creds of wrong) {
      const body = await rejects(client(creds).ruok(), 401, 'INVALID_CREDENTIALS');
      assert.ok(!JSON.stringify(body).includes(creds.apiKey), 'never echoes the key');
    }
  });

  it('refuses every operation without valid credentials', async () => {
    const bad = { ...parent, apiKey: 'nope' };
    const c = client(bad);
    await rejects(c.onboardingUrl(person()), 401);
    await rejects(c.result({ checkId: 'x' }), 401);
    await rejects(c.search({ name: { familyName: 'Lee', givenName: 'Ann' } }), 401);
    for (const path of ['/v2/kyc/entity/e/checks', '/v2/kyc/document/d/checks', '/v2/kyc/entity/e/full']) {
      const r = await raw('GET', path, { creds: bad });
      assert.equal(r.status, 401, path);
      assertErrorObject(r.body, 'INVALID_CREDENTIALS');
    }
  });

  it('answers a 500 ErrorObject (a server fault, not bad input) when SANDBOX_CREDENTIALS is broken', async () => {
    const r = await raw('GET', '/v2/kyc/ruok', { creds: parent, env: nodeEnv({ SANDBOX_CREDENTIALS: '{not json' }) });
    assert.equal(r.status, 500);
    assertErrorObject(r.body, 'SANDBOX_MISCONFIGURED');
  });

  it('answers unknown paths with a 404 ErrorObject', async () => {
    const r = await raw('GET', '/v2/kyc/nothing-here', { creds: parent });
    assert.equal(r.status, 404);
    assertErrorObject(r.body, 'NOT_FOUND');
  });
});
