/**
 * A registry partner's own `vendors` and `failover`, set by `npm run
 * partners`, win over the deployment's KYC_VENDOR and VENDOR_FAILOVER
 * (docs/partners.md "Vendors"): the CLI writes them to the local state, the
 * record is read from there and served by the local stack's app in node (the
 * doubles in process); bad values are refused before anything is written.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import type { Env } from '../../worker/lib/env';
import { clearPartnerCache } from '../../worker/partners/registry';
import { resetDemoVendors, setOutage } from '../../worker/demo/vendor-switch';
import { resetVendorHealth } from '../../worker/vendors/health';
import { nodeApp } from '../support/node-app';
import { nodeEnv } from '../support/node-env';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { adultDateOfBirth } from '../support/dates';
import { newSigningJwk } from '../support/signing-keys';
import { signedStripeEvent, STRIPE_SANDBOX_WEBHOOK_SECRET } from '../../sandbox/stripe/app';
import { openRecord } from '../../worker/partners/registry';
import { PartnerRecord } from '../../worker/partners/partner';
import { seal } from '../../worker/partners/seal';
import { DEV_SEALING_KEY, publicJwk } from '../../worker/partners/sealing';
import type { SandboxDefaults } from '../../worker/ports';
import { partnersCli } from '../support/partners-cli';

const WORKER = 'http://127.0.0.1:8787';
const ORIGIN = 'https://registry-vendors.example';
const GLOBEX = 'https://globex-vendors.example';
const SIGNING_JWK = await newSigningJwk('partner-vendors-key');

let dir: string;

const cli = (args: string[], env: Record<string, string> = {}) => partnersCli(dir, args, env);

/** The registry as the CLI left it in the local state: every key (records, origin and server-key index entries). */
async function registryKv(): Promise<KVNamespace> {
  const mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response(null, { status: 404 }); } }',
    kvNamespaces: { PARTNERS: 'PARTNERS' },
    kvPersist: join(dir, 'state', 'v3/kv'),
  });
  try {
    const kv = await mf.getKVNamespace('PARTNERS');
    const data = new Map<string, string>();
    for (const { name } of (await kv.list()).keys) {
      const value = await kv.get(name);
      if (value !== null) data.set(name, value);
    }
    return { get: async (k: string) => data.get(k) ?? null } as unknown as KVNamespace;
  } finally {
    await mf.dispose();
  }
}

/** The local stack with the registry the CLI wrote, its environment partner on idv without failover. */
async function stack(more: Partial<Env> = {}) {
  clearPartnerCache();
  const sealing = /^PARTNER_SEALING_KEY='(.*)'$/m.exec(readFileSync(join(dir, 'dev.vars'), 'utf8'))?.[1]; // as .dev.vars quotes it
  assert.ok(sealing, 'keygen wrote the sealing key');
  const env = nodeEnv({
    KYC_VENDOR: 'idv',
    VENDOR_FAILOVER: 'off',
    PARTNERS: await registryKv(),
    PARTNER_SEALING_KEY: sealing,
    SESSION_SECRET: 'partner-vendors-session-secret-0123456789',
    RESULT_SIGNING_KEYS: JSON.stringify([SIGNING_JWK]),
    LIMIT_OPEN_PER_IP: '1000000',
    ...more,
  });
  const store = new MemoryVerifications(env);
  useNodeTwins(env, { verifications: store });
  return { env, store };
}

async function link(env: Env, origin = ORIGIN) {
  const res = await nodeApp.request(
    `${WORKER}/api/onboarding-link`,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: origin },
      body: JSON.stringify({
        name: { givenName: 'Ann', familyName: 'Lee' },
        dateOfBirth: adultDateOfBirth(),
        phone: { code: '+61', number: '0412 345 678' },
        consent: true,
      }),
    },
    env,
  );
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kyc-partner-vendors-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  resetDemoVendors();
  resetVendorHealth();
});

describe("a registry partner's vendors and failover", () => {
  it('npm run partners sets them; the record wins over KYC_VENDOR and VENDOR_FAILOVER; bad values are refused', async () => {
    assert.equal((await cli(['keygen'])).code, 0);
    // The sandbox's child of demo partner A: its credentials work with the idv double.
    const add = await cli(['add', 'acme', '--name', 'Acme', '--origin', ORIGIN, '--child-id', 'demo-child-a', '--vendors', 'stripe'], {
      PARTNER_API_KEY: 'sandbox-key-a',
    });
    assert.equal(add.code, 0, add.stderr);
    const shown = JSON.parse((await cli(['show', 'acme', '--json'])).stdout) as Record<string, unknown>;
    assert.deepEqual(shown.vendors, [{ vendor: 'stripe' }]);

    // KYC_VENDOR=idv, but the partner's own vendors say stripe.
    let s = await stack();
    const onStripe = await link(s.env);
    assert.equal(onStripe.status, 200, JSON.stringify(onStripe.json));
    assert.match(onStripe.json.url, /\/sandbox\/stripe\/flow\//);
    assert.equal((await s.store.execute(onStripe.json.verificationId, { type: 'read' }))?.vendor, 'stripe');

    // Refused, nothing written: an unknown vendor, a vendor twice, failover with one vendor, an unknown mode.
    for (const [flags, problem] of [
      [['--vendors', 'idv,acmeid'], /vendors: "acmeid" is not a vendor/],
      [['--vendors', 'idv,idv'], /vendors: names a vendor twice/],
      [['--failover', 'before_start'], /failover: before_start needs a second vendor/],
      [['--vendors', 'idv,stripe', '--failover', 'always'], /failover: must be off or before_start/],
    ] as const) {
      const r = await cli(['update', 'acme', ...flags]);
      assert.equal(r.code, 2, `${flags.join(' ')}: ${r.stdout}`);
      assert.match(r.stderr, problem);
    }

    // idv then stripe, with failover (VENDOR_FAILOVER is off): an idv outage goes to stripe.
    const update = await cli(['update', 'acme', '--vendors', 'idv,stripe', '--failover', 'before_start']);
    assert.equal(update.code, 0, update.stderr);
    s = await stack();
    const onIdv = await link(s.env);
    assert.equal(onIdv.status, 200, JSON.stringify(onIdv.json));
    assert.equal((await s.store.execute(onIdv.json.verificationId, { type: 'read' }))?.vendor, 'idv');
    setOutage('idv', 'unreachable');
    const failedOver = await link(s.env);
    assert.equal(failedOver.status, 200, JSON.stringify(failedOver.json));
    assert.equal((await s.store.execute(failedOver.json.verificationId, { type: 'read' }))?.vendor, 'stripe');

    // Cleared: the deployment's settings again (idv, no failover): the outage is answered.
    assert.equal((await cli(['update', 'acme', '--clear', 'vendors', '--clear', 'failover'])).code, 0);
    s = await stack();
    const answered = await link(s.env);
    assert.equal(answered.status, 502, JSON.stringify(answered.json));
  });
});

describe("a registry partner's own vendor credentials", () => {
  it('npm run partners seals its Stripe key and signing secret, refuses a vendor with credentials nowhere or of the other mode, and shows where they come from', async () => {
    if (!/PARTNER_SEALING_KEY/.test(readFileSync(join(dir, 'dev.vars'), 'utf8'))) assert.equal((await cli(['keygen'])).code, 0);
    const add = ['add', 'globex', '--name', 'Globex', '--origin', GLOBEX, '--vendors', 'stripe'];
    // Real Stripe without the deployment's key: the partner's vendor would have no credentials.
    const realStripe = { STRIPE_API_BASE: 'https://stripe.invalid' };
    const none = await cli(add, realStripe);
    assert.equal(none.code, 2, none.stdout);
    assert.match(none.stderr, /vendors: stripe has no credentials/);
    // One deployment, one mode: this one is a test deployment (the idv sandbox).
    const live = await cli(add, { ...realStripe, PARTNER_STRIPE_SECRET_KEY: 'sk_live_globexLiveKey1' });
    assert.equal(live.code, 2, live.stdout);
    assert.match(live.stderr, /stripeSecretKey: is a live key in a test deployment/);
    assert.doesNotMatch(live.stderr + live.stdout, /sk_live_globexLiveKey1/);
    // Its own Stripe secrets need stripe among its own vendors.
    const noVendors = await cli(['add', 'globex', '--name', 'Globex', '--origin', GLOBEX, '--child-id', 'demo-child-a'], {
      PARTNER_API_KEY: 'sandbox-key-a',
      PARTNER_STRIPE_SECRET_KEY: 'sk_test_globexOwnKey1',
    });
    assert.equal(noVendors.code, 2);
    assert.match(noVendors.stderr, /stripeSecretKey: needs stripe among its own vendors/);

    // Its own key (one the double refuses: too short) and its endpoint's secret; no idv credentials needed.
    const own = await cli(add, { PARTNER_STRIPE_SECRET_KEY: 'sk_test_abc', PARTNER_STRIPE_WEBHOOK_SECRET: 'whsec_globex_own' });
    assert.equal(own.code, 0, own.stderr);
    assert.match(own.stdout, /vendors stripe:own/);
    const shown = await cli(['show', 'globex']);
    const record = JSON.parse(shown.stdout) as { vendors: Record<string, string>[]; vendorCredentials: unknown };
    assert.match(record.vendors[0]!.secretKey!, /^set \(sealed to /);
    assert.match(record.vendors[0]!.webhookSecret!, /^set \(sealed to /);
    assert.deepEqual(record.vendorCredentials, { stripe: 'own' });
    const listed = await cli(['list']);
    assert.match(listed.stdout, /globex .*stripe:own/);
    for (const out of [own.stdout, shown.stdout, listed.stdout]) assert.doesNotMatch(out, /sk_test_abc|whsec_globex_own/);

    // The adapter uses the partner's key, not the deployment's (the double's own): the double refuses it.
    let s = await stack();
    const refused = await link(s.env, GLOBEX);
    assert.equal(refused.status, 502, JSON.stringify(refused.json));
    // The vendor-webhook route checks its own signing secret, not the deployment's.
    const hook = async (secret: string) => {
      const e = await signedStripeEvent(
        'identity.verification_session.verified',
        { id: 'vs_x', client_reference_id: 'v_x' },
        secret,
        Date.now(),
      );
      const res = await nodeApp.request(
        `${WORKER}/vendor-webhooks/stripe/globex`,
        { method: 'POST', body: e.body, headers: { 'Content-Type': 'application/json', 'Stripe-Signature': e.signature } },
        s.env,
      );
      return res.status;
    };
    assert.equal(await hook('whsec_globex_own'), 200);
    assert.equal(await hook(STRIPE_SANDBOX_WEBHOOK_SECRET), 400);
    // GET /v1/capabilities answers with its own credentials: on real Stripe without the deployment's signing
    // secret, events come only through the partner's own.
    const serverKey = /kyc_sk_test_[A-Za-z0-9_-]{43}/.exec(own.stdout)?.[0];
    assert.ok(serverKey, 'add printed its server key');
    const webhooksOn = async () => {
      const real = await stack({ STRIPE_API_BASE: 'https://stripe.invalid' });
      const res = await nodeApp.request(`${WORKER}/v1/capabilities`, { headers: { Authorization: `Bearer ${serverKey}` } }, real.env);
      assert.equal(res.status, 200);
      const { vendors } = (await res.json()) as { vendors: { vendor: string; capabilities: { vendorWebhooks: boolean } }[] };
      assert.deepEqual(
        vendors.map((v) => v.vendor),
        ['stripe'],
      );
      return vendors[0]!.capabilities.vendorWebhooks;
    };
    assert.equal(await webhooksOn(), true);
    assert.equal((await cli(['update', 'globex', '--clear', 'stripeWebhookSecret'])).code, 0);
    assert.equal(await webhooksOn(), false);

    // Cleared: the deployment's (the double's) key again, and links work; then a key of its own the double takes.
    assert.equal((await cli(['update', 'globex', '--clear', 'stripeSecretKey'])).code, 0);
    assert.deepEqual((JSON.parse((await cli(['show', 'globex'])).stdout) as { vendorCredentials: unknown }).vendorCredentials, {
      stripe: 'deployment',
    });
    s = await stack();
    assert.equal((await link(s.env, GLOBEX)).status, 200);
    assert.equal((await cli(['update', 'globex'], { PARTNER_STRIPE_SECRET_KEY: 'sk_test_globexOwnKey1' })).code, 0);
    s = await stack();
    const made = await link(s.env, GLOBEX);
    assert.equal(made.status, 200, JSON.stringify(made.json));
    assert.equal((await s.store.execute(made.json.verificationId, { type: 'read' }))?.vendor, 'stripe');
  });

  it('records already stored keep working (bare vendor ids, idv credentials on the record or in its entry); a key of the other mode is MISCONFIGURED', async () => {
    const pub = publicJwk(DEV_SEALING_KEY);
    const defaults = { sealingKey: DEV_SEALING_KEY } as SandboxDefaults;
    const base = {
      v: 1 as const,
      partnerId: 'oldco',
      displayName: 'Old Co',
      origins: ['https://old.example'],
      updatedAt: '2026-11-01T00:00:00.000Z',
    };
    const env = nodeEnv({});
    const old = PartnerRecord.parse({
      ...base,
      childId: 'child-old',
      apiKey: await seal(pub, 'oldco', 'apiKey', 'key-old'),
      vendors: ['stripe', 'idv'],
    });
    const opened = await openRecord(env, old, defaults);
    assert.deepEqual(opened.vendors, ['stripe', 'idv']);
    assert.equal(opened.apiKey, 'key-old');
    assert.equal(opened.stripe, undefined);

    const inEntry = PartnerRecord.parse({
      ...base,
      vendors: [
        { vendor: 'idv', childId: 'child-entry', apiKey: await seal(pub, 'oldco', 'apiKey', 'key-entry') },
        { vendor: 'stripe', secretKey: await seal(pub, 'oldco', 'stripeSecretKey', 'sk_test_entryKey123') },
      ],
    });
    const fromEntry = await openRecord(env, inEntry, defaults);
    assert.equal(fromEntry.childId, 'child-entry');
    assert.equal(fromEntry.apiKey, 'key-entry');
    assert.deepEqual(fromEntry.stripe, { secretKey: 'sk_test_entryKey123' });
    // A secret sealed for another field does not open as this one.
    const swapped = PartnerRecord.parse({
      ...base,
      vendors: [{ vendor: 'stripe', secretKey: await seal(pub, 'oldco', 'apiKey', 'sk_test_entryKey123') }],
    });
    await assert.rejects(openRecord(env, swapped, defaults), /stripeSecretKey does not open/);

    // A live key in this test deployment (the sandbox): refused, naming the field, never the value.
    const liveKey = PartnerRecord.parse({
      ...base,
      vendors: [{ vendor: 'stripe', secretKey: await seal(pub, 'oldco', 'stripeSecretKey', 'sk_live_entryKey123') }],
    });
    await assert.rejects(openRecord(env, liveKey, defaults), (err: Error) => {
      assert.match(err.message, /vendors\.stripe\.secretKey is a live key (beside the Stripe double|in a test deployment)/);
      assert.doesNotMatch(err.message, /sk_live_entryKey123/);
      return err.name === 'RegistryError';
    });
  });
});
