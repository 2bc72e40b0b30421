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
import { deployProblems, deploySteps, shellSecrets, shellVars, signingKeysProblem } from '../../scripts/lib/deploy-checks.mjs';

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

/** A well-formed live server key and webhook secret (made here; they open nothing). */
const SERVER_KEY = `kyc_sk_live_${'k'.repeat(43)}`;
const WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/** Everything a production deploy needs, from the shell: the vendor, our secrets, and the environment partner. */
const live = (): Record<string, string> => ({
  KYC_BASE_URL: 'https://vendor.example',
  PUBLIC_ORIGIN: 'https://kyc.example.com',
  KYC_API_KEY: 'vendor-key',
  KYC_CUSTOMER_ID: 'customer-1',
  SESSION_SECRET: 's'.repeat(44),
  RESULT_SIGNING_KEYS: keys,
  ALLOWED_ORIGINS: 'https://www.bank.example',
  PARTNER_SERVER_KEYS: SERVER_KEY,
});

function deploy(settings: Record<string, string | undefined>, config?: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...WRANGLER_ENV };
  for (const n of Object.keys(env))
    if (
      /^(KYC_|PUBLIC_ORIGIN|SESSION_SECRET|RESULT_SIGNING_KEYS|ALLOWED_ORIGINS|WEBHOOK_|PARTNER_|OPS_TOKEN|TURNSTILE_|CLOUDFLARE_API_TOKEN)/.test(
        n,
      )
    )
      delete env[n];
  for (const [k, v] of Object.entries(settings)) if (v !== undefined) env[k] = v;
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', 'scripts/deploy.mjs', '--dry-run', '--no-build', ...(config ? ['--config', config] : [])],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env,
      timeout: 120_000,
    },
  );
}

/** [env.production] as wrangler.toml has it, with a real D1 id. */
const CONFIG = {
  vars: {},
  d1_databases: [{ binding: 'DB', database_id: D1_ID }],
  queues: {
    producers: [
      { binding: 'WEBHOOK_QUEUE', queue: 'kyc-webhooks' },
      { binding: 'WEBHOOK_DLQ', queue: 'kyc-webhooks-dlq' },
      { binding: 'EVENTS_QUEUE', queue: 'kyc-ops-events' },
    ],
    consumers: [{ queue: 'kyc-webhooks', dead_letter_queue: 'kyc-webhooks-dlq' }],
  },
};

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
    ['no vendor key', { KYC_API_KEY: undefined }, /KYC_API_KEY is not set: `npm run setup -- --env production` sets it/],
    // The partner's side: with no partner at all every page gets 403 and /v1 401.
    [
      'no partner at all',
      { ALLOWED_ORIGINS: undefined, PARTNER_SERVER_KEYS: undefined },
      /no partner known: ALLOWED_ORIGINS is not set.*`npm run setup -- --env production`/,
    ],
    [
      'a partner origin without a server key',
      { PARTNER_SERVER_KEYS: undefined },
      /PARTNER_SERVER_KEYS is not set: the environment partner/,
    ],
    ['a server key without a partner origin', { ALLOWED_ORIGINS: undefined }, /PARTNER_SERVER_KEYS is set but ALLOWED_ORIGINS is not/],
    ['a test server key', { PARTNER_SERVER_KEYS: `kyc_sk_test_${'k'.repeat(43)}` }, /PARTNER_SERVER_KEYS holds a test key/],
    ['a partner origin that is no origin', { ALLOWED_ORIGINS: 'https://www.bank.example/kyc' }, /ALLOWED_ORIGINS holds .*origins only/],
    ['an http partner origin', { ALLOWED_ORIGINS: 'http://www.bank.example' }, /ALLOWED_ORIGINS holds .*https/],
    // Webhooks: half a configuration is 500 MISCONFIGURED on every route.
    [
      'WEBHOOK_URL without WEBHOOK_SECRET',
      { WEBHOOK_URL: 'https://www.bank.example.com/kyc/webhooks' },
      /WEBHOOK_SECRET is not set while WEBHOOK_URL is: every route would answer 500 MISCONFIGURED/,
    ],
    ['WEBHOOK_SECRET without WEBHOOK_URL', { WEBHOOK_SECRET }, /WEBHOOK_SECRET is set but WEBHOOK_URL is not/],
    [
      'a malformed WEBHOOK_SECRET',
      { WEBHOOK_URL: 'https://www.bank.example.com/kyc/webhooks', WEBHOOK_SECRET: 'whsec_short' },
      /WEBHOOK_SECRET must be whsec_/,
    ],
    ['an http WEBHOOK_URL', { WEBHOOK_URL: 'http://www.bank.example/kyc/webhooks', WEBHOOK_SECRET }, /WEBHOOK_URL must be https/],
    [
      'a WEBHOOK_URL to a private address',
      { WEBHOOK_URL: 'https://10.0.0.7/kyc/webhooks', WEBHOOK_SECRET },
      /WEBHOOK_URL must be a public host/,
    ],
    [
      'a WEBHOOK_URL whose name is never routed (.test, .example, .invalid, .onion, .alt)',
      { WEBHOOK_URL: 'https://hooks.bank.test/kyc/webhooks', WEBHOOK_SECRET },
      /WEBHOOK_URL must be a public host/,
    ],
  ] as const) {
    it(`refuses ${what}, naming it`, () => {
      const env: Record<string, string | undefined> = { ...live(), ...change };
      const problems = deployProblems({ config: CONFIG, env, remoteSecrets: undefined });
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
      /no partner known/,
    ])
      assert.match(r.stderr, name);
    assert.match(r.stderr, /`npm run setup -- --env production` makes all of it/);
    assert.doesNotMatch(r.stdout, /Total Upload/);
  });

  it('deploys the production entry when everything is set, applying the D1 migrations first', () => {
    const r = deploy({ ...live(), WEBHOOK_URL: 'https://www.bank.example.com/kyc/webhooks', WEBHOOK_SECRET }, MIGRATED_CONFIG);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    // What the shell gave goes on, all of it, and is named (never its value).
    assert.match(
      r.stdout,
      /From the shell \(vars as --var, secrets through a private file\): KYC_BASE_URL, PUBLIC_ORIGIN, ALLOWED_ORIGINS, WEBHOOK_URL, KYC_API_KEY, KYC_CUSTOMER_ID, SESSION_SECRET, RESULT_SIGNING_KEYS, PARTNER_SERVER_KEYS, WEBHOOK_SECRET/,
    );
    assert.match(
      r.stdout,
      /Cloudflare needs: D1 kyc-onboard and queues kyc-webhooks, kyc-webhooks-dlq, kyc-ops-events, kyc-ops-events-dlq/,
    );
    // wrangler's warning about the sandbox's bindings, explained in one line.
    assert.match(r.stdout, /SANDBOX_STORE and DEV_SECRETS are not in \[env.production\]: intended, production has no sandbox/);
    assert.ok(!r.stdout.includes(SERVER_KEY) && !r.stdout.includes(WEBHOOK_SECRET), 'no partner secret printed');
    assert.match(
      r.stdout,
      /a deploy applies the D1 migrations first \(wrangler d1 migrations apply DB --remote .*--env production\): 0001_/,
    );
    assert.match(r.stdout, /Total Upload/);
    assert.match(r.stdout, /env\.VERIFICATIONS/);
    assert.doesNotMatch(r.stdout.slice(r.stdout.indexOf('following bindings')), /SANDBOX_STORE|DEV_SECRETS/);
    assert.ok(!r.stdout.includes('s'.repeat(44)) && !r.stdout.includes('vendor-key'), 'no secret printed');
  });

  it('the registry counts as a partner when Cloudflare lists one with an origin, and then needs the sealing key', () => {
    const env = { ...live(), ALLOWED_ORIGINS: undefined, PARTNER_SERVER_KEYS: undefined };
    const empty = deployProblems({ config: CONFIG, env, remoteSecrets: undefined, registry: { partners: 0, origins: 0 } });
    assert.match(empty.join('\n'), /no partner: ALLOWED_ORIGINS is not set and the registry holds no partner with an origin/);
    const one = deployProblems({ config: CONFIG, env, remoteSecrets: undefined, registry: { partners: 1, origins: 2 } });
    assert.deepEqual(one.length, 1, one.join('\n'));
    assert.match(one[0]!, /PARTNER_SEALING_KEY is not set/);
    assert.deepEqual(
      deployProblems({
        config: CONFIG,
        env: { ...env, PARTNER_SEALING_KEY: '{}' },
        remoteSecrets: undefined,
        registry: { partners: 1, origins: 1 },
      }),
      [],
    );
  });

  it('names the queues: a binding missing from [env.production], or a queue Cloudflare does not have', () => {
    const config = { ...CONFIG, queues: { producers: CONFIG.queues.producers.filter((p) => p.binding !== 'WEBHOOK_DLQ') } };
    assert.match(deployProblems({ config, env: live(), remoteSecrets: undefined }).join('\n'), /queue binding WEBHOOK_DLQ is missing/);
    const missing = deployProblems({ config: CONFIG, env: live(), remoteSecrets: undefined, missingQueues: ['kyc-webhooks-dlq'] });
    assert.match(missing.join('\n'), /queue kyc-webhooks-dlq not on Cloudflare: `npm run setup -- --env production` creates it/);
  });

  it('takes every secret and partner var given in the shell the same way (none silently dropped)', () => {
    const env = {
      ...live(),
      WEBHOOK_URL: 'https://www.bank.example.com/kyc/webhooks',
      WEBHOOK_SECRET,
      PARTNER_SEALING_KEY: '{"kty":"EC"}',
      HOME: '/root',
    };
    assert.deepEqual(Object.keys(shellVars(env)).sort(), ['ALLOWED_ORIGINS', 'KYC_BASE_URL', 'PUBLIC_ORIGIN', 'WEBHOOK_URL']);
    assert.deepEqual(Object.keys(shellSecrets(env)).sort(), [
      'KYC_API_KEY',
      'KYC_CUSTOMER_ID',
      'PARTNER_SEALING_KEY',
      'PARTNER_SERVER_KEYS',
      'RESULT_SIGNING_KEYS',
      'SESSION_SECRET',
      'WEBHOOK_SECRET',
    ]);
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
    const config = CONFIG;
    const env = {
      KYC_BASE_URL: 'https://vendor.example',
      PUBLIC_ORIGIN: 'https://kyc.example.com',
      ALLOWED_ORIGINS: 'https://www.bank.example',
    };
    const remoteSecrets = new Set(['KYC_API_KEY', 'KYC_CUSTOMER_ID', 'SESSION_SECRET', 'RESULT_SIGNING_KEYS', 'PARTNER_SERVER_KEYS']);
    assert.deepEqual(deployProblems({ config, env, remoteSecrets }), []);
    // A secret on Cloudflare counts exactly as one in the shell: WEBHOOK_URL with WEBHOOK_SECRET set there is complete.
    const withHook = { ...env, WEBHOOK_URL: 'https://www.bank.example.com/kyc/webhooks' };
    assert.match(deployProblems({ config, env: withHook, remoteSecrets }).join('\n'), /WEBHOOK_SECRET is not set while WEBHOOK_URL is/);
    assert.deepEqual(deployProblems({ config, env: withHook, remoteSecrets: new Set([...remoteSecrets, 'WEBHOOK_SECRET']) }), []);
    const dev = JSON.stringify([{ ...(JSON.parse(await testSigningKeys()) as object[])[0], kid: 'sandbox-1' }]);
    assert.match(signingKeysProblem(dev) ?? '', /development key/);
    assert.match(signingKeysProblem('[{"kty":"EC"}]') ?? '', /P-256/);
  });
});
