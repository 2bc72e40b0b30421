/**
 * The worker keeps no in-memory stand-in for its Durable Object stores: a
 * store without its binding (and without a twin a node test injected) answers
 * 500 MISCONFIGURED naming the binding, never a silent map in memory.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allowances } from '../../worker/lib/allowances';
import { idempotencyStore } from '../../worker/lib/idempotency';
import { verifications } from '../../worker/verifications/verification-store';
import { nodeEnv } from '../support/node-env';
import { useNodeTwins } from '../support/node-twins';

const misconfigured = (binding: string) => ({
  status: 500,
  errorCode: 'MISCONFIGURED',
  issues: [{ issue: 'is not bound', issueLocation: binding }],
});

describe('stores without their binding', () => {
  it('refuse with MISCONFIGURED naming VERIFICATIONS, LIMITS or IDEMPOTENCY', () => {
    const env = nodeEnv();
    assert.throws(() => verifications(env), misconfigured('VERIFICATIONS'));
    assert.throws(() => allowances(env), misconfigured('LIMITS'));
    assert.throws(() => idempotencyStore(env, 'acme https://partner.example key-12345'), misconfigured('IDEMPOTENCY'));
  });

  it('use the twins a node test injected, for that env only', async () => {
    const env = useNodeTwins(nodeEnv());
    assert.equal(await verifications(env).read('vrf_nothing'), undefined);
    assert.equal(await allowances(env).take('budget', 'a', Date.now() + 60_000, 1), true);
    assert.equal(await allowances(env).take('budget', 'b', Date.now() + 60_000, 1), false);
    assert.deepEqual(await idempotencyStore(env, 'acme k-1').claim('acme k-1', 'print'), { kind: 'new' });
    assert.throws(() => verifications(nodeEnv()), misconfigured('VERIFICATIONS'));
  });
});
