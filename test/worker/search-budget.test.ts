/**
 * Entity search has its own, smaller budget per server key (issue 40): a
 * search finds people by name, so a key cannot try names at the pace of the
 * rest of /v1. The app in node with counting limiters standing in for the
 * RL_SEARCH and RL_SERVER_KEY bindings (their windows are wrangler.toml's,
 * checked in workerd by missing-bindings and the deploy checks).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { nodeApp } from '../support/node-app';
import { nodeEnv } from '../support/node-env';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';

const WORKER = 'http://127.0.0.1:8787';
const SERVER_KEY = `kyc_sk_test_${'s'.repeat(43)}`;

/** A limiter that lets `allowed` requests through per key, then refuses, and says which keys it counted. */
function counting(allowed: number) {
  const keys: string[] = [];
  const limiter: RateLimit = {
    limit: async ({ key }) => {
      keys.push(key);
      return { success: keys.filter((k) => k === key).length <= allowed };
    },
  };
  return { limiter, keys };
}

function stack(search: RateLimit, server: RateLimit) {
  const env = nodeEnv({
    SESSION_SECRET: 'search-budget-test-session-secret-0123',
    PARTNER_SERVER_KEYS: SERVER_KEY,
    RL_SEARCH: search,
    RL_SERVER_KEY: server,
  });
  useNodeTwins(env, { verifications: new MemoryVerifications(env, { now: () => Date.now() }) });
  return env;
}

const searchOnce = (env: ReturnType<typeof stack>) =>
  nodeApp.request(
    `${WORKER}/v1/entities/search`,
    {
      method: 'POST',
      headers: { Authorization: `Bearer ${SERVER_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: { givenName: 'Ann', familyName: 'Budget' }, dateOfBirth: { dateOfBirth: '1990-01-02' } }),
    },
    env,
  );

describe('the search budget per server key', () => {
  it('past RL_SEARCH, a search is 429 RATE_LIMITED with Retry-After', async () => {
    const search = counting(2);
    const server = counting(1000);
    const env = stack(search.limiter, server.limiter);
    for (let i = 0; i < 2; i++) assert.notEqual((await searchOnce(env)).status, 429);
    const refused = await searchOnce(env);
    assert.equal(refused.status, 429);
    const body = (await refused.json()) as { errorCode: string; errorMsg: string };
    assert.equal(body.errorCode, 'RATE_LIMITED');
    assert.match(body.errorMsg, /searches/);
    assert.match(refused.headers.get('Retry-After') ?? '', /^\d+$/);
    assert.equal(search.keys.length, 3);
    assert.equal(new Set(search.keys).size, 1, 'one key per server key');
    assert.ok(!search.keys[0]!.includes(SERVER_KEY), 'the budget is keyed by a hash, never the key');
    assert.deepEqual(server.keys, search.keys, "the search also counts in the key's /v1 budget");
  });

  it('other /v1 routes do not spend the search budget', async () => {
    const search = counting(0);
    const env = stack(search.limiter, counting(1000).limiter);
    const list = await nodeApp.request(`${WORKER}/v1/capabilities`, { headers: { Authorization: `Bearer ${SERVER_KEY}` } }, env);
    assert.equal(list.status, 200, await list.text());
    assert.equal(search.keys.length, 0);
  });

  it('wrangler.toml gives search a budget smaller than the rest of /v1, in the default and production environments', () => {
    const toml = readFileSync(new URL('../../wrangler.toml', import.meta.url), 'utf8');
    const limitOf = (name: string) =>
      [...toml.matchAll(new RegExp(`name = "${name}"\\s+namespace_id = "\\d+"\\s+simple = \\{ limit = (\\d+), period = 60 \\}`, 'g'))].map(
        (m) => Number(m[1]),
      );
    const search = limitOf('RL_SEARCH');
    const server = limitOf('RL_SERVER_KEY');
    assert.equal(search.length, 2, 'RL_SEARCH in both environments');
    assert.equal(server.length, 2);
    for (let i = 0; i < 2; i++) assert.ok(search[i]! > 0 && search[i]! < server[i]!, `${search[i]} < ${server[i]}`);
  });
});
