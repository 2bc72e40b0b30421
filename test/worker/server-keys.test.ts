/**
 * Server keys say their mode (`kyc_sk_test_` / `kyc_sk_live_`): a new key has
 * the mode asked for, and the other mode's key is refused before any look-up
 * with a 401 whose message says which mistake it is (both directions; the
 * workerd suite checks a live key against a running sandbox stack).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../worker/lib/errors';
import { authenticate } from '../../worker/server-api/auth';
import { bearerKey, keyMode, newServerKey } from '../../worker/server-api/keys';
import { nodeEnv } from '../support/node-env';
import { portsFor } from '../../worker/ports-for';

async function refusal(key: string, livemode: boolean): Promise<ApiError> {
  try {
    await authenticate(nodeEnv(), portsFor(nodeEnv()), 'https://kyc.example/v1/verifications', `Bearer ${key}`, livemode);
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err;
  }
  return assert.fail('accepted');
}

describe('server keys', () => {
  it('are made in the mode asked for, and read back as such', () => {
    const test = newServerKey('test');
    const live = newServerKey('live');
    assert.match(test, /^kyc_sk_test_[A-Za-z0-9_-]{43}$/);
    assert.match(live, /^kyc_sk_live_[A-Za-z0-9_-]{43}$/);
    assert.equal(keyMode(test), 'test');
    assert.equal(keyMode(live), 'live');
    assert.equal(keyMode(`kyc_sk_${'A'.repeat(43)}`), undefined, 'a key made before modes');
    assert.equal(bearerKey(`Bearer kyc_sk_${'A'.repeat(43)}`), `kyc_sk_${'A'.repeat(43)}`);
    assert.equal(bearerKey(`Bearer kyc_sk_prod_${'A'.repeat(43)}`), undefined);
  });

  it('a test key on a live deployment is a 401 that says so', async () => {
    const err = await refusal(newServerKey('test'), true);
    assert.equal(err.status, 401);
    assert.equal(err.errorCode, 'UNAUTHENTICATED');
    assert.match(err.errorMsg, /a test key on a live deployment/i);
  });

  it('a live key on a test deployment is a 401 that says so', async () => {
    const err = await refusal(newServerKey('live'), false);
    assert.equal(err.status, 401);
    assert.match(err.errorMsg, /a live key on a test deployment/i);
  });

  it('a key of the right mode that no partner has is the one plain 401', async () => {
    const err = await refusal(newServerKey('live'), true);
    assert.equal(err.status, 401);
    assert.doesNotMatch(err.errorMsg, /deployment/);
  });
});
