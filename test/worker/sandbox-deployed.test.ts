/**
 * A deployed sandbox (finding 1): with the built-in sandbox as the
 * vendor on a public host, its vendor API does not answer HTTP callers with
 * the public default credentials (anyone could search every visitor's name
 * and date of birth); it does for this machine (by the connection's address,
 * not the Host header), and with SANDBOX_CREDENTIALS
 * set on purpose. The worker's own in-process calls keep the flow working.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nodeApp as app } from '../support/node-app';
import type { Env } from '../../worker/lib/env';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { adultDateOfBirth } from '../support/dates';
import { startHarness, stopHarness } from './harness';
import { nodeEnv } from '../support/node-env';

before(startHarness);
after(stopHarness);

const PUBLIC = 'https://demo.kyc.example';
const creds = { 'Content-Type': 'application/json', api_key: 'sandbox-key', 'X-Service-CustomerID': 'demo-customer' };
// Where a caller is, as workerd passes the connection's address (app.request has no connection):
// this machine, and another on the network.
const LOCAL = { 'CF-Connecting-IP': '127.0.0.1' };
const LAN = { 'CF-Connecting-IP': '192.168.1.20' };
const search = (base: string, env: Env, from: Record<string, string> = LOCAL) =>
  app.request(
    `${base}/sandbox/v2/kyc/entity/search`,
    { method: 'POST', headers: { ...creds, ...from }, body: JSON.stringify({ name: { givenName: 'Ana', familyName: 'Lima' } }) },
    env,
  );

function deployedEnv(over: Partial<Env> = {}): Env {
  // A deliberate public sales demo: a deployed worker runs the sandbox only with DEMO=on.
  const env: Env = nodeEnv({ PUBLIC_ORIGIN: PUBLIC, DEMO: 'on', ...over });
  useNodeTwins(env, { verifications: new MemoryVerifications(env) });
  return env;
}

describe('the sandbox in a deployment', () => {
  it('does not answer its vendor API to HTTP callers with the default credentials off loopback', async () => {
    const env = deployedEnv();
    const res = await search(PUBLIC, env);
    assert.equal(res.status, 404);
    for (const path of ['/sandbox/idv/v2/idvalidate/result', '/sandbox/idv/v2/idvalidate/onboarding-url']) {
      const r = await app.request(`${PUBLIC}${path}`, { method: 'POST', headers: { ...creds, ...LOCAL }, body: '{}' }, env);
      assert.equal(r.status, 404, path);
    }
  });

  it('answers this machine on a loopback host, and anyone with SANDBOX_CREDENTIALS set on purpose', async () => {
    const local = 'http://127.0.0.1:8787';
    assert.equal((await search(local, deployedEnv({ PUBLIC_ORIGIN: undefined }))).status, 200);
    // A caller on the network naming the loopback host (HOST=0.0.0.0 npm start) is not this machine.
    assert.equal((await search(local, deployedEnv({ PUBLIC_ORIGIN: undefined }), LAN)).status, 404);
    // No connection address at all is not this machine either.
    assert.equal((await search(local, deployedEnv({ PUBLIC_ORIGIN: undefined }), {})).status, 404);
    const own = JSON.stringify({ customers: [{ customerId: 'demo-customer', apiKey: 'sandbox-key' }] });
    const res = await search(PUBLIC, deployedEnv({ SANDBOX_CREDENTIALS: own }), LAN);
    assert.equal(res.status, 200, await res.text());
  });

  it('limits what HTTP callers write to /sandbox per client, and refuses bodies over 64 KB', async () => {
    const counts = new Map<string, number>();
    // A caller on the network reaches the vendor API only with credentials set on purpose.
    const own = JSON.stringify({ customers: [{ customerId: 'demo-customer', apiKey: 'sandbox-key' }] });
    const env = deployedEnv({
      SANDBOX_CREDENTIALS: own,
      RL_IP: {
        limit: async ({ key }: { key: string }) => ({ success: (counts.set(key, (counts.get(key) ?? 0) + 1).get(key) ?? 0) <= 3 }),
      },
    });
    const local = 'http://127.0.0.1:8787';
    const statuses: number[] = [];
    const search = () =>
      app.request(
        `${local}/sandbox/v2/kyc/entity/search`,
        {
          method: 'POST',
          headers: { ...creds, 'CF-Connecting-IP': '198.51.100.9' },
          body: JSON.stringify({ name: { givenName: 'Ana', familyName: 'Lima' } }),
        },
        env,
      );
    for (let i = 0; i < 5; i++) statuses.push((await search()).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    // Reading (a visitor's outbox, the pages) is not counted.
    for (let i = 0; i < 5; i++)
      assert.equal(
        (await app.request(`${local}/sandbox/outbox?key=${'k'.repeat(22)}`, { headers: { 'CF-Connecting-IP': '198.51.100.9' } }, env))
          .status,
        200,
      );
    const big = await app.request(
      `${local}/sandbox/v2/kyc/entity/search`,
      {
        method: 'POST',
        headers: { ...creds, ...LOCAL },
        body: JSON.stringify({ name: { givenName: 'A', familyName: 'x'.repeat(70_000) } }),
      },
      deployedEnv({ PUBLIC_ORIGIN: undefined }),
    );
    assert.equal(big.status, 413);
  });

  it('keeps the flow working: the worker reaches its sandbox in-process', async () => {
    const env = deployedEnv();
    const res = await app.request(
      `${PUBLIC}/api/onboarding-link`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: PUBLIC },
        body: JSON.stringify({
          name: { familyName: 'Lima' },
          dateOfBirth: adultDateOfBirth(),
          phone: { code: '+61', number: '0412 345 678' },
          consent: true,
        }),
      },
      env,
    );
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const { url } = JSON.parse(text) as { url: string };
    assert.ok(url.startsWith(`${PUBLIC}/sandbox/flow/`), url);
    const page = await app.request(url, {}, env);
    assert.equal(page.status, 200, 'the hosted-flow page stays');
  });

  it('is not an open redirect: an HTTP caller may send people back only to origins the worker allows', async () => {
    const local = 'http://127.0.0.1:8787';
    const env = deployedEnv({ PUBLIC_ORIGIN: undefined, ALLOWED_ORIGINS: 'https://partner.example' });
    const link = (successRedirectURL: string, errorRedirectURL = `${local}/`) =>
      app.request(
        `${local}/sandbox/idv/v2/idvalidate/onboarding-url`,
        {
          method: 'POST',
          headers: { ...creds, ...LOCAL },
          body: JSON.stringify({ consent: true, entity: { name: { familyName: 'Lima' } }, successRedirectURL, errorRedirectURL }),
        },
        env,
      );
    const evil = await link('https://evil.example/phish');
    assert.equal(evil.status, 400);
    const body = (await evil.json()) as { issues: { issueLocation: string }[] };
    assert.deepEqual(
      body.issues.map((i) => i.issueLocation),
      ['successRedirectURL'],
    );
    assert.equal((await link(`${local}/done`, 'https://partner.example.evil.example/')).status, 400);
    for (const ok of ['https://partner.example/back?x=1', `${local}/done`, 'http://localhost:8787/demo']) {
      const res = await link(ok);
      assert.equal(res.status, 200, `${ok}: ${await res.clone().text()}`);
    }
  });
});
