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
import { partnerKey } from '../../worker/partners/partner';
import { resetDemoVendors, setOutage } from '../../worker/demo/vendor-switch';
import { resetVendorHealth } from '../../worker/vendors/health';
import { nodeApp } from '../support/node-app';
import { nodeEnv } from '../support/node-env';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { adultDateOfBirth } from '../support/dates';
import { newSigningJwk } from '../support/signing-keys';
import { partnersCli } from '../support/partners-cli';

const WORKER = 'http://127.0.0.1:8787';
const ORIGIN = 'https://registry-vendors.example';
const SIGNING_JWK = await newSigningJwk('partner-vendors-key');

let dir: string;

const cli = (args: string[], env: Record<string, string> = {}) => partnersCli(dir, args, env);

/** The registry as the CLI left it in the local state: the partner's record and the origin's index entry. */
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
    for (const key of [partnerKey('acme'), `origin:${ORIGIN}`]) {
      const value = await kv.get(key);
      if (value !== null) data.set(key, value);
    }
    return { get: async (k: string) => data.get(k) ?? null } as unknown as KVNamespace;
  } finally {
    await mf.dispose();
  }
}

/** The local stack with the registry the CLI wrote, its environment partner on idv without failover. */
async function stack() {
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
  });
  const store = new MemoryVerifications(env);
  useNodeTwins(env, { verifications: store });
  return { env, store };
}

async function link(env: Env) {
  const res = await nodeApp.request(
    `${WORKER}/api/onboarding-link`,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: ORIGIN },
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
