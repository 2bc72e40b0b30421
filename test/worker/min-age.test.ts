/**
 * The partner's minimum age (environment `MIN_AGE`, registry `minAge`): the worker refuses a younger person with a
 * 400 `VALIDATION_FAILED` naming `dateOfBirth` before any vendor call, and tells the widget the minimum (and where a
 * link may be texted) through `GET /api/settings`. Ages are counted on the app's own clock, held still by the test;
 * every date of birth is computed from that clock.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createApp } from '../../worker/app';
import type { Env } from '../../worker/lib/env';
import { twinsFor, useNodeTwins } from '../support/node-twins';
import { isoDayBefore } from '../support/dates';
import { baseEnv, okVendor, PARTNER, person, startHarness, stopHarness, vendor, vendorRequests, WORKER } from './harness';

/** The test's clock: the moment the file started, held still (a birthday cannot pass mid-test). */
const NOW = Date.now();
const app = createApp({ ports: twinsFor, clock: () => NOW });
const today = new Date(NOW);

before(startHarness);
after(stopHarness);
beforeEach(() => vendor(...okVendor));

async function ask(path: string, env: Env, json?: unknown) {
  const res = await app.request(
    `${WORKER}${path}`,
    json === undefined
      ? { headers: { Origin: PARTNER } }
      : { method: 'POST', headers: { Origin: PARTNER, 'Content-Type': 'application/json' }, body: JSON.stringify(json) },
    useNodeTwins(env),
  );
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}
const link = (env: Env, dateOfBirth: string) => ask('/api/onboarding-link', env, { ...person, dateOfBirth });

describe('MIN_AGE: the worker refuses a younger person', () => {
  const env18 = { ...baseEnv, MIN_AGE: '18' };

  it('turns 18 tomorrow: 400 VALIDATION_FAILED naming dateOfBirth, and no vendor call', async () => {
    const res = await link(env18, isoDayBefore(18, -1, today));
    assert.equal(res.status, 400, JSON.stringify(res.json));
    assert.equal(res.json.errorCode, 'VALIDATION_FAILED');
    assert.deepEqual(res.json.issues, [{ issue: 'must be at least 18 years ago', issueLocation: 'dateOfBirth' }]);
    assert.equal(typeof res.json.requestId, 'string');
    assert.equal(vendorRequests.length, 0);
  });

  it('a 15-year-old is refused; turned 18 today is accepted', async () => {
    assert.equal((await link(env18, isoDayBefore(15, 100, today))).status, 400);
    const res = await link(env18, isoDayBefore(18, 0, today));
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(vendorRequests.length, 1);
  });

  it('unset: no minimum (a 15-year-old gets a link)', async () => {
    const res = await link(baseEnv, isoDayBefore(15, 100, today));
    assert.equal(res.status, 200, JSON.stringify(res.json));
  });

  for (const bad of ['0', '121', 'eighteen', '18.5']) {
    it(`MIN_AGE=${bad} is 500 MISCONFIGURED naming MIN_AGE`, async () => {
      const res = await ask('/api/settings', { ...baseEnv, MIN_AGE: bad });
      assert.equal(res.status, 500);
      assert.equal(res.json.errorCode, 'MISCONFIGURED');
      assert.deepEqual(
        res.json.issues.map((i: { issueLocation: string }) => i.issueLocation),
        ['MIN_AGE'],
      );
    });
  }
});

describe('GET /api/settings: what the widget starts with', () => {
  it('gives minAge, whether texting exists and where it may go', async () => {
    const res = await ask('/api/settings', { ...baseEnv, MIN_AGE: ' 18 ', SMS_ALLOWED_COUNTRIES: 'au,nz' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { minAge: 18, sms: true, smsCountries: ['AU', 'NZ'] });
  });

  it('no minAge when MIN_AGE is unset', async () => {
    const res = await ask('/api/settings', baseEnv);
    assert.equal(res.status, 200);
    assert.equal('minAge' in res.json, false);
  });
});
