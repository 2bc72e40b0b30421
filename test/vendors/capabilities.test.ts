/**
 * Capabilities, honestly (docs/vendors.md "Capabilities"): `GET
 * /v1/capabilities` says what the partner's vendors can do; what the vendor
 * cannot serve is `501 CAPABILITY_UNAVAILABLE` naming the vendor and the
 * capability (entity search, a texted link with Stripe), before any vendor
 * call; `/api/settings` offers texting only with a vendor that texts.
 * The local stack's app in node, the doubles in process.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Env } from '../../worker/lib/env';
import { nodeApp } from '../support/node-app';
import { nodeEnv } from '../support/node-env';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { adultDateOfBirth } from '../support/dates';

const WORKER = 'http://127.0.0.1:8787';
const PAGE = 'https://partner.example';
const SERVER_KEY = `kyc_sk_test_${'c'.repeat(43)}`;

function stack(settings: Partial<Env>) {
  const env = nodeEnv({
    ALLOWED_ORIGINS: PAGE,
    SESSION_SECRET: 'capabilities-test-session-secret-0123',
    PARTNER_SERVER_KEYS: SERVER_KEY,
    LIMIT_OPEN_PER_IP: '1000000',
    ...settings,
  });
  useNodeTwins(env, { verifications: new MemoryVerifications(env, { now: () => Date.now() }) });
  return env;
}

async function ask(env: Env, path: string, init: RequestInit = {}) {
  const res = await nodeApp.request(`${WORKER}${path}`, init, env);
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}
const asServer = { Authorization: `Bearer ${SERVER_KEY}` };

describe('capabilities', () => {
  it('GET /v1/capabilities: the vendors in priority order, what each can do, and failover', async () => {
    const env = stack({ KYC_VENDOR: 'idv,stripe', VENDOR_FAILOVER: 'before_start' });
    const res = await ask(env, '/v1/capabilities', { headers: asServer });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(
      res.json.vendors.map((v: { vendor: string }) => v.vendor),
      ['idv', 'stripe'],
    );
    const [idv, stripe] = res.json.vendors as { livemode: boolean; capabilities: Record<string, boolean> }[];
    assert.equal(idv!.capabilities.sms, true);
    assert.equal(idv!.capabilities.entitySearch, true);
    assert.equal(stripe!.capabilities.sms, false);
    assert.equal(stripe!.capabilities.entitySearch, false);
    assert.equal(stripe!.capabilities.redactAtVendor, true);
    assert.equal(stripe!.livemode, false);
    assert.equal(res.json.failover, 'before_start');
  });

  it('entity search for a stripe partner is 501 CAPABILITY_UNAVAILABLE naming stripe and entitySearch', async () => {
    const env = stack({ KYC_VENDOR: 'stripe' });
    const res = await ask(env, '/v1/entities/search', {
      method: 'POST',
      headers: { ...asServer, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: { givenName: 'Ann', familyName: 'Lee' }, dateOfBirth: { dateOfBirth: '1990-01-02' } }),
    });
    assert.equal(res.status, 501, JSON.stringify(res.json));
    assert.equal(res.json.errorCode, 'CAPABILITY_UNAVAILABLE');
    assert.match(res.json.errorMsg, /stripe/);
    assert.deepEqual(res.json.issues, [{ issue: 'is not offered by stripe', issueLocation: 'entitySearch' }]);
  });

  it('a texted link with a vendor that does not text is 501 naming it and sms; /api/settings offers no texting', async () => {
    const env = stack({ KYC_VENDOR: 'stripe' });
    const res = await ask(env, '/api/onboarding-link', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: PAGE },
      body: JSON.stringify({
        name: { givenName: 'Ann', familyName: 'Lee' },
        dateOfBirth: adultDateOfBirth(),
        phone: { code: '+61', number: '0412 345 678' },
        consent: true,
        sendSMS: true,
      }),
    });
    assert.equal(res.status, 501, JSON.stringify(res.json));
    assert.equal(res.json.errorCode, 'CAPABILITY_UNAVAILABLE');
    assert.deepEqual(res.json.issues, [{ issue: 'is not offered by stripe', issueLocation: 'sms' }]);
    const settings = await ask(env, '/api/settings', { headers: { Origin: PAGE } });
    assert.equal(settings.json.sms, false);
    const idvSettings = await ask(stack({ KYC_VENDOR: 'idv' }), '/api/settings', { headers: { Origin: PAGE } });
    assert.equal(idvSettings.json.sms, true);
  });
});
