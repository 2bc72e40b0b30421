/**
 * The production composition (worker/entry/production.ts: `createApp()` with
 * nothing plugged in), in node: its ports are the stores' twins alone, so no
 * sandbox, demo partner or development secret is plugged in, as in the
 * production bundle. Without KYC_BASE_URL it fails
 * closed even on loopback; /sandbox and the demo do not exist; with a vendor
 * configured it works.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import type { Env } from '../../worker/lib/env';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { nodeProductApp as app } from '../support/node-app';
import { adultDateOfBirth, isoInstantAfter } from '../support/dates';
import { newSigningJwk } from '../support/signing-keys';
import { nodeEnv } from '../support/node-env';

const LOCAL = 'http://127.0.0.1:8787';
const VENDOR = 'https://vendor.test';
const server = setupServer(
  http.post(`${VENDOR}/idv/v2/idvalidate/onboarding-url`, () =>
    HttpResponse.json({
      entity: { entityId: 'e-prod' },
      status: 'CREATED',
      url: 'https://hosted.vendor.test/f/1',
      urlExpiry: isoInstantAfter(1800),
    }),
  ),
  http.get(`${VENDOR}/v2/kyc/ruok`, () => HttpResponse.json({ status: 'OK' })),
);
before(() => server.listen({ onUnhandledRequest: 'error' }));
after(() => server.close());

const person = {
  name: { familyName: 'Prod' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};
const link = (env: Env, origin = LOCAL) =>
  app.request(
    `${LOCAL}/api/onboarding-link`,
    { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: origin }, body: JSON.stringify(person) },
    env,
  );

describe('the production composition', () => {
  it('fails closed without KYC_BASE_URL even on loopback (it has no sandbox), naming the setting', async () => {
    const env: Env = nodeEnv({ ALLOWED_ORIGINS: LOCAL });
    for (const res of [await link(env), await app.request(`${LOCAL}/api/ruok`, {}, env)]) {
      assert.equal(res.status, 500);
      const body = (await res.json()) as { errorCode: string; issues: { issueLocation: string }[] };
      assert.equal(body.errorCode, 'MISCONFIGURED');
      assert.ok(body.issues.some((i) => i.issueLocation === 'KYC_BASE_URL'));
    }
  });

  it('has no sandbox, no demo partner and no demo page', async () => {
    for (const path of ['/sandbox/flow/x', '/sandbox/v2/kyc/ruok', '/sandbox/demo-webhooks/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ']) {
      assert.equal((await app.request(`${LOCAL}${path}`, {}, {})).status, 404, path);
    }
    // The own origin is no (demo) partner: 403 before anything else.
    assert.equal((await link(nodeEnv({ DEMO: 'on', KYC_BASE_URL: VENDOR }))).status, 403);
    const home = await app.request(`${LOCAL}/`, {}, { DEMO: 'on' });
    assert.equal(home.status, 200);
    assert.match(await home.text(), /An identity-verification service/);
  });

  it('works with a vendor configured, and its outcomes are live', async () => {
    const env: Env = nodeEnv({
      KYC_BASE_URL: VENDOR,
      KYC_API_KEY: 'k',
      KYC_CUSTOMER_ID: 'c',
      SESSION_SECRET: 's'.repeat(32),
      PUBLIC_ORIGIN: 'https://kyc.example.com',
      RESULT_SIGNING_KEYS: JSON.stringify([await newSigningJwk('prod-1')]),
      ALLOWED_ORIGINS: 'https://shop.example',
    });
    const store = new MemoryVerifications(env);
    useNodeTwins(env, { verifications: store, plugins: {} });
    const res = await link(env, 'https://shop.example');
    assert.equal(res.status, 200, await res.clone().text());
    const { verificationId } = (await res.json()) as { verificationId: string };
    assert.equal(store.records.get(verificationId)?.livemode, true);
    assert.equal((await app.request(`${LOCAL}/api/ruok`, {}, env)).status, 200);
  });
});
