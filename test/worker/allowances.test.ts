/**
 * Where budgets live and how a verification's two open holds are taken
 * (worker/lib/allowances.ts): a partner's budget in an object of its own, a
 * client's or a number's (hashed, new for nearly every request) always in the
 * same one of LIMIT_SHARDS running objects; both holds asked at once, and the
 * one taken given back when the other refuses. The budgets' behaviour in
 * workerd is test/worker/limits-workerd.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashKey, holdOpen, LIMIT_SHARDS, objectOf } from '../../worker/lib/allowances';
import { nodeEnv } from '../support/node-env';
import { twinsFor, useNodeTwins } from '../support/node-twins';
import { portsFor } from '../../worker/ports-for';

// Node has no LIMITS binding: each env gets budgets in memory as its `allowances` port (test/support/node-twins.ts).
// Budget keys are keyed hashes under the session secret's derived key.
const envWith = (vars: Record<string, string> = {}) => useNodeTwins(nodeEnv({ SESSION_SECRET: 'allowances-session-secret-0123', ...vars }));
const portsOf = (env: ReturnType<typeof envWith>) => portsFor(env, twinsFor(env));

describe('allowances', () => {
  it('keeps a partner budget in its own object and spreads hashed budgets over the shards, always the same one', async () => {
    const env = envWith();
    assert.equal(objectOf('open-partner acme'), 'open-partner acme');
    const shards = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const key = await hashKey(env, {}, 'open-ip', `203.0.113.${i}`);
      const shard = objectOf(key);
      assert.match(shard, /^shard \d+$/);
      assert.ok(Number(shard.slice(6)) < LIMIT_SHARDS);
      assert.equal(objectOf(key), shard, 'the same budget, the same object');
      shards.add(shard);
    }
    assert.ok(shards.size > LIMIT_SHARDS / 2, `500 clients over ${shards.size} of ${LIMIT_SHARDS} shards`);
    assert.match(objectOf(await hashKey(env, {}, 'sms-day', '+61412345678')), /^shard \d+$/);
  });

  it('takes both holds, and gives the partner hold back when the client is full', async () => {
    const env = envWith({ LIMIT_OPEN_PER_IP: '1', LIMIT_OPEN_PER_PARTNER: '5' });
    const ports = portsOf(env);
    const holds = await holdOpen(env, ports, 'vrf_a', '198.51.100.7', 'acme');
    assert.deepEqual(holds, [await hashKey(env, ports, 'open-ip', '198.51.100.7'), 'open-partner acme']);
    await assert.rejects(holdOpen(env, ports, 'vrf_b', '198.51.100.7', 'acme'), { status: 429, errorMsg: /from this connection/ });
    // vrf_b's partner hold was given back: the partner holds vrf_a and four more, not five.
    for (const id of ['vrf_c', 'vrf_d', 'vrf_e', 'vrf_f']) await holdOpen(env, ports, id, `192.0.2.${id.charCodeAt(4)}`, 'acme');
    await assert.rejects(holdOpen(env, ports, 'vrf_g', '198.51.100.99', 'acme'), { status: 429, errorMsg: /for this site/ });
    // ... and the client hold taken beside the refused partner hold was given back too.
    assert.ok(await ports.allowances.take(await hashKey(env, ports, 'open-ip', '198.51.100.99'), 'vrf_h', Date.now() + 60_000, 1));
  });
});
