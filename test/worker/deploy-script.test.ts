/**
 * `npm run deploy` (scripts/deploy.mjs) is the production deploy. Before it
 * builds or uploads anything it refuses, naming each setting, a vendor base
 * URL that is not https, a missing PUBLIC_ORIGIN, wrangler.toml's all-zeros
 * D1 id and missing live secrets (scripts/lib/deploy-checks.mjs); a deploy
 * applies the D1 migrations before the worker. Run here with --dry-run
 * (nothing uploaded, no login).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, WRANGLER_ENV } from '../support/wrangler';
import { testSigningKeys } from '../support/signing-keys';
import { deployProblems, deploySteps, signingKeysProblem } from '../../scripts/lib/deploy-checks.mjs';

/** A copy of wrangler.toml beside it (its paths are relative to it) whose production D1 id is a real-looking one. */
const MIGRATED_CONFIG = join(ROOT, `.wrangler-deploy-test-${process.pid}.toml`);
const D1_ID = 'c0ffee00-1234-4abc-8def-0123456789ab';
let keys: string;

before(async () => {
  keys = await testSigningKeys();
  const toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
  writeFileSync(MIGRATED_CONFIG, toml.replaceAll('database_id = "00000000-0000-0000-0000-000000000000"', `database_id = "${D1_ID}"`));
});
after(() => rmSync(MIGRATED_CONFIG, { force: true }));

/** Everything a production deploy needs, from the shell. */
const live = (): Record<string, string> => ({
  KYC_BASE_URL: 'https://vendor.example',
  PUBLIC_ORIGIN: 'https://kyc.example.com',
  KYC_API_KEY: 'vendor-key',
  KYC_CUSTOMER_ID: 'customer-1',
  SESSION_SECRET: 's'.repeat(44),
  RESULT_SIGNING_KEYS: keys,
});

function deploy(settings: Record<string, string | undefined>, config?: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...WRANGLER_ENV };
  for (const n of [
    'KYC_BASE_URL',
    'PUBLIC_ORIGIN',
    'KYC_API_KEY',
    'KYC_CUSTOMER_ID',
    'SESSION_SECRET',
    'RESULT_SIGNING_KEYS',
    'CLOUDFLARE_API_TOKEN',
  ])
    delete env[n];
  for (const [k, v] of Object.entries(settings)) if (v !== undefined) env[k] = v;
  return spawnSync(process.execPath, ['scripts/deploy.mjs', '--dry-run', '--no-build', ...(config ? ['--config', config] : [])], {
    cwd: ROOT,
    encoding: 'utf8',
    env,
    timeout: 120_000,
  });
}

describe('npm run deploy', () => {
  for (const [what, change, why] of [
    ['KYC_BASE_URL unset', { KYC_BASE_URL: undefined }, /KYC_BASE_URL is not set/],
    ['KYC_BASE_URL "sandbox"', { KYC_BASE_URL: 'sandbox' }, /production has no sandbox/],
    ['KYC_BASE_URL misspelt', { KYC_BASE_URL: 'vendor.example' }, /KYC_BASE_URL is not a URL/],
    ['KYC_BASE_URL http', { KYC_BASE_URL: 'http://vendor.example' }, /KYC_BASE_URL must be an https URL/],
    ['PUBLIC_ORIGIN unset', { PUBLIC_ORIGIN: undefined }, /PUBLIC_ORIGIN is not set/],
    ['PUBLIC_ORIGIN with a path', { PUBLIC_ORIGIN: 'https://kyc.example.com/api' }, /PUBLIC_ORIGIN must be an origin only/],
    ['no signing keys', { RESULT_SIGNING_KEYS: undefined }, /RESULT_SIGNING_KEYS is not set/],
    ['no session secret', { SESSION_SECRET: undefined }, /SESSION_SECRET is not set/],
    ['no vendor key', { KYC_API_KEY: undefined }, /KYC_API_KEY is not set/],
  ] as const) {
    it(`refuses ${what}, naming it`, () => {
      const env: Record<string, string | undefined> = { ...live(), ...change };
      const problems = deployProblems({
        config: { vars: {}, d1_databases: [{ binding: 'DB', database_id: D1_ID }] },
        env,
        remoteSecrets: undefined,
      });
      assert.equal(problems.length, 1, `only that one is named:\n${problems.join('\n')}`);
      assert.match(problems[0]!, why);
    });
  }

  it("npm run deploy -- --dry-run refuses wrangler.toml's placeholder D1 id, and names every problem at once, before wrangler runs", () => {
    const r = deploy({});
    assert.equal(r.status, 1, r.stdout + r.stderr);
    for (const name of [
      /KYC_BASE_URL is not set/,
      /PUBLIC_ORIGIN is not set/,
      /database_id of DB is the placeholder/,
      /KYC_API_KEY is not set/,
      /KYC_CUSTOMER_ID is not set/,
      /SESSION_SECRET is not set/,
      /RESULT_SIGNING_KEYS is not set/,
    ])
      assert.match(r.stderr, name);
    assert.doesNotMatch(r.stdout, /Total Upload/);
  });

  it('deploys the production entry when everything is set, applying the D1 migrations first', () => {
    const r = deploy(live(), MIGRATED_CONFIG);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /a deploy applies the D1 migrations first \(wrangler d1 migrations apply DB --remote .*--env production\): 0001_/,
    );
    assert.match(r.stdout, /Total Upload/);
    assert.match(r.stdout, /env\.VERIFICATIONS/);
    assert.doesNotMatch(r.stdout.slice(r.stdout.indexOf('following bindings')), /SANDBOX_STORE|DEV_SECRETS/);
    assert.ok(!r.stdout.includes('s'.repeat(44)) && !r.stdout.includes('vendor-key'), 'no secret printed');
  });

  it('a real deploy applies the migrations before the worker; a dry run applies nothing', () => {
    const real = deploySteps({
      dryRun: false,
      vars: { PUBLIC_ORIGIN: 'https://kyc.example.com' },
      secretsFile: '/tmp/s.json',
      extraArgs: [],
    });
    assert.deepEqual(real.migrate, ['d1', 'migrations', 'apply', 'DB', '--remote', '--env', 'production']);
    assert.deepEqual(real.deploy, [
      'deploy',
      '--env',
      'production',
      '--var',
      'PUBLIC_ORIGIN:https://kyc.example.com',
      '--secrets-file',
      '/tmp/s.json',
    ]);
    assert.equal(deploySteps({ dryRun: true, vars: {}, extraArgs: ['--dry-run'] }).migrate, undefined);
  });

  it('counts a secret already set on Cloudflare, and refuses a development signing key', async () => {
    const config = { vars: {}, d1_databases: [{ binding: 'DB', database_id: D1_ID }] };
    const env = { KYC_BASE_URL: 'https://vendor.example', PUBLIC_ORIGIN: 'https://kyc.example.com' };
    const remoteSecrets = new Set(['KYC_API_KEY', 'KYC_CUSTOMER_ID', 'SESSION_SECRET', 'RESULT_SIGNING_KEYS']);
    assert.deepEqual(deployProblems({ config, env, remoteSecrets }), []);
    const dev = JSON.stringify([{ ...(JSON.parse(await testSigningKeys()) as object[])[0], kid: 'sandbox-1' }]);
    assert.match(signingKeysProblem(dev) ?? '', /development key/);
    assert.match(signingKeysProblem('[{"kty":"EC"}]') ?? '', /P-256/);
  });
});
