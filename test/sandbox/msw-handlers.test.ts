/** The msw vendor double (test/support/vendor-sandbox.ts) is the sandbox itself, reached over global fetch. */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setupServer } from 'msw/node';
import { createVendorClient } from '../../worker/vendors/idv/client';
import { freshSandbox, rewriteToSandboxPath, sandboxHandlers, SANDBOX_BASE } from '../support/vendor-sandbox';

const server = setupServer(...sandboxHandlers(), ...sandboxHandlers('https://other-vendor.test/api/v9'));
before(() => server.listen({ onUnhandledRequest: 'error' }));
after(() => server.close());
beforeEach(() => freshSandbox());

const vendor = (baseUrl = SANDBOX_BASE) =>
  createVendorClient({
    baseUrl,
    apiKey: 'sandbox-key',
    customerId: 'demo-customer',
    channel: 'api',
    timeoutMs: 2000,
    searchPath: '/v2/kyc/entity/search',
    fetch: (r) => fetch(r),
  });

describe('sandboxHandlers', () => {
  it('serves the whole vendor interface at the default base', async () => {
    const c = vendor();
    assert.deepEqual(await c.ruok(), { status: 'OK' });
    const link = await c.onboardingUrl({ consent: true, entity: { name: { givenName: 'Mo', familyName: 'Msw' } } });
    assert.ok(link.url.startsWith('https://vendor.test/sandbox/flow/'));
    assert.equal((await c.result({ entity: { entityId: link.entity.entityId } })).checkStatus, 'CHECKING');
    const press = await fetch(link.url, { method: 'POST', body: new URLSearchParams({ outcome: 'complete' }) });
    assert.equal(press.status, 200, 'no redirect URL: the done page');
    assert.equal((await c.result({ entity: { entityId: link.entity.entityId } })).checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.equal((await c.search({ name: { givenName: 'Mo', familyName: 'Msw' } })).totalEntitiesMatched, 1);
  });

  it('serves any base path', async () => {
    const c = vendor('https://other-vendor.test/api/v9');
    assert.deepEqual(await c.ruok(), { status: 'OK' });
  });

  it('freshSandbox() empties the store', async () => {
    const c = vendor();
    assert.equal((await c.search({ name: { givenName: 'Mo', familyName: 'Msw' } })).totalEntitiesMatched, 0);
  });

  it('rewriteToSandboxPath keeps method, query and body', async () => {
    const r = rewriteToSandboxPath(
      new Request('https://x.test/base/v2/kyc/entity/search?child=true', { method: 'POST', body: '{"a":1}' }),
      'https://x.test/base',
    );
    assert.equal(r.url, 'https://x.test/sandbox/v2/kyc/entity/search?child=true');
    assert.equal(r.method, 'POST');
    assert.equal(await r.text(), '{"a":1}');
  });
});
