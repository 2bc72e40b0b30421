/**
 * The vendor settings fail closed (docs/configuration.md): each problem is a
 * 500 MISCONFIGURED issue naming its setting; one deployment is one mode.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readConfig } from '../../worker/config';
import type { Env } from '../../worker/lib/env';
import { misconfiguration } from '../../worker/middleware/config-guard';
import { nodeEnv } from '../support/node-env';

const LOCAL = 'http://127.0.0.1:8787/api/onboarding-link';
const withDoubles = { inProcessVendor: { path: '/sandbox', fetch: async () => new Response() } };
const REAL = {
  SESSION_SECRET: 'x'.repeat(40),
  PUBLIC_ORIGIN: 'https://kyc.example.com',
  RESULT_SIGNING_KEYS: undefined,
};

/** The settings the guard names for `settings` (vendor settings and the secrets a real vendor needs). */
function named(settings: Partial<Env>, ports: object = withDoubles, url = LOCAL): string[] {
  const env = nodeEnv(settings);
  return misconfiguration(env, ports, readConfig(env), url).map((i) => i.issueLocation);
}

describe('vendor settings', () => {
  it('default: idv, the sandbox, no failover', () => {
    const cfg = readConfig(nodeEnv());
    assert.deepEqual(cfg.vendors.order, ['idv']);
    assert.equal(cfg.vendors.failover, 'off');
    assert.equal(cfg.livemode, false);
    assert.deepEqual(named({}), []);
  });

  it('stripe on the local stack is the double, in test mode', () => {
    const cfg = readConfig(nodeEnv({ KYC_VENDOR: 'stripe' }));
    assert.equal(cfg.vendors.stripe.sandbox, true);
    assert.equal(cfg.livemode, false);
    assert.deepEqual(named({ KYC_VENDOR: 'stripe' }), []);
    assert.deepEqual(named({ KYC_VENDOR: 'idv,stripe', VENDOR_FAILOVER: 'before_start' }), []);
    assert.deepEqual(readConfig(nodeEnv({ KYC_VENDOR: ' Stripe , IDV ' })).vendors.order, ['stripe', 'idv']);
  });

  it('names a vendor it does not have, a failover it does not know, or one with no second vendor', () => {
    assert.deepEqual(named({ KYC_VENDOR: 'idv,onfido' }), ['KYC_VENDOR']);
    assert.deepEqual(named({ VENDOR_FAILOVER: 'always' }), ['VENDOR_FAILOVER']);
    assert.deepEqual(named({ VENDOR_FAILOVER: 'before_start' }), ['VENDOR_FAILOVER']);
    assert.deepEqual(named({ KYC_VENDOR: 'stripe', STRIPE_VERIFICATION_TYPE: 'selfie' }), ['STRIPE_VERIFICATION_TYPE']);
    assert.deepEqual(named({ KYC_VENDOR: 'stripe', STRIPE_WEBHOOK_SECRET: 'not-a-whsec' }), ['STRIPE_WEBHOOK_SECRET']);
  });

  it("VENDOR_FAILOVER is judged for the environment partner only: with a registry and no ALLOWED_ORIGINS it is the registry partners' default", () => {
    const registry = { PARTNERS: {} as KVNamespace };
    // Registry partners are judged by their own vendors (npm run partners), not by KYC_VENDOR.
    assert.deepEqual(named({ ...registry, VENDOR_FAILOVER: 'before_start' }), []);
    // The environment partner serves pages with one vendor: nothing to fail over to.
    assert.deepEqual(named({ ...registry, VENDOR_FAILOVER: 'before_start', ALLOWED_ORIGINS: 'https://shop.example' }), ['VENDOR_FAILOVER']);
    assert.deepEqual(named({ VENDOR_FAILOVER: 'before_start', ALLOWED_ORIGINS: 'https://shop.example' }), ['VENDOR_FAILOVER']);
  });

  it('a live key beside the sandbox, the double or the demo is MISCONFIGURED naming STRIPE_SECRET_KEY', () => {
    // The idv sandbox and a live Stripe key: test and live mixed.
    assert.ok(named({ KYC_VENDOR: 'idv,stripe', STRIPE_SECRET_KEY: 'sk_live_abc123' }).includes('STRIPE_SECRET_KEY'));
    assert.deepEqual(named({ KYC_VENDOR: 'stripe', STRIPE_API_BASE: 'sandbox', STRIPE_SECRET_KEY: 'sk_live_abc123' }), [
      'STRIPE_SECRET_KEY',
    ]);
    assert.ok(named({ KYC_VENDOR: 'stripe', STRIPE_SECRET_KEY: 'sk_live_abc123', DEMO: 'on', ...REAL }).includes('STRIPE_SECRET_KEY'));
    // A real idv vendor beside a Stripe test key: mixed too.
    const realIdv = { KYC_BASE_URL: 'https://vendor.example', KYC_API_KEY: 'k', KYC_CUSTOMER_ID: 'c', ...REAL };
    assert.ok(named({ ...realIdv, KYC_VENDOR: 'idv,stripe', STRIPE_SECRET_KEY: 'sk_test_abc123' }).includes('STRIPE_SECRET_KEY'));
  });

  it('real Stripe needs its key, an https root, and the secrets of a real vendor; not KYC_BASE_URL', () => {
    const got = named({ KYC_VENDOR: 'stripe', STRIPE_API_BASE: 'http://stripe.example' }, withDoubles, 'https://kyc.example.com/api/x');
    assert.deepEqual(got.sort(), ['PUBLIC_ORIGIN', 'RESULT_SIGNING_KEYS', 'SESSION_SECRET', 'STRIPE_API_BASE', 'STRIPE_SECRET_KEY'].sort());
    const cfg = readConfig(nodeEnv({ KYC_VENDOR: 'stripe', STRIPE_SECRET_KEY: 'rk_live_abc123' }));
    assert.equal(cfg.livemode, true);
    assert.equal(cfg.demo, false);
    assert.equal(cfg.vendors.stripe.base, 'https://api.stripe.com');
  });

  it('the double on a deployment without it, or deployed without DEMO=on, is refused', () => {
    assert.ok(named({ KYC_VENDOR: 'stripe', STRIPE_API_BASE: 'sandbox' }, {}).includes('STRIPE_API_BASE'));
    assert.ok(
      named(
        { KYC_VENDOR: 'stripe', STRIPE_API_BASE: 'sandbox', PUBLIC_ORIGIN: 'https://kyc.example.com' },
        withDoubles,
        'https://kyc.example.com/api/x',
      ).includes('STRIPE_API_BASE'),
    );
  });
});
