/**
 * `npm run setup -- --env production` (scripts/setup.mjs) against a fake
 * `wrangler` on PATH that records its calls and keeps a pretend Cloudflare
 * account (test/support/fake-wrangler.mjs): a first run creates the D1
 * database, the four queues and the KV namespace, writes their ids and the
 * vars into [env.production], puts every secret with `--env production` (the
 * value on standard input, never a command line) and applies the
 * migrations; what it made passes the rehearsal's checks. A second run
 * creates and puts nothing and leaves wrangler.toml as it was; `--dry-run`
 * prints every command and runs none.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, WRANGLER_ENV } from '../support/wrangler';
import { deployProblems, signingKeysProblem } from '../../scripts/lib/deploy-checks.mjs';
import { environmentTables } from '../../scripts/lib/toml-edit.mjs';

const CONFIG = join(ROOT, `.wrangler-setup-test-${process.pid}.toml`);
let dir: string;
let fakeBin: string;

interface Call {
  args: string[];
  stdin: boolean;
}
interface State {
  d1: { uuid: string; name: string }[];
  queues: string[];
  kv: { id: string; title: string }[];
  kvKeys: Record<string, string>;
  secrets: Record<string, string>;
  migrationsApplied: number;
}

/** The shell of an operator who gives everything (non-interactive: standard input is not a terminal). */
const SHELL = {
  KYC_BASE_URL: 'https://api.vendor.example',
  PUBLIC_ORIGIN: 'https://kyc.bank.example',
  ALLOWED_ORIGINS: 'https://www.bank.example',
  WEBHOOK_URL: 'https://www.bank.example.com/kyc/webhooks',
  KYC_API_KEY: 'vendor-api-key-from-contract',
  KYC_CUSTOMER_ID: 'customer-77',
};

function setup(extraArgs: string[], shell: Record<string, string> = SHELL) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...WRANGLER_ENV };
  for (const n of Object.keys(env))
    if (/^(KYC_|PUBLIC_ORIGIN|ALLOWED_ORIGINS|WEBHOOK_|PARTNER_|CLOUDFLARE_API_TOKEN)/.test(n)) delete env[n];
  Object.assign(env, shell, {
    PATH: `${fakeBin}:${process.env.PATH}`,
    FAKE_WRANGLER_STATE: join(dir, 'state.json'),
    FAKE_WRANGLER_LOG: join(dir, 'calls.jsonl'),
  });
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/setup.mjs', '--env', 'production', '--config', CONFIG, ...extraArgs], {
    cwd: ROOT,
    encoding: 'utf8',
    env,
    input: '',
    timeout: 60_000,
  });
}
const calls = (): Call[] =>
  existsSync(join(dir, 'calls.jsonl'))
    ? readFileSync(join(dir, 'calls.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Call)
    : [];
const state = () => JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as State;
const joined = (c: Call) => c.args.join(' ');
const CHANGES = /^(d1 create|queues create|kv namespace create|kv key put|secret put)\b/;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kyc-setup-'));
  fakeBin = join(dir, 'bin');
  spawnSync('mkdir', [fakeBin]);
  const fake = join(fakeBin, 'wrangler');
  writeFileSync(fake, `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'test/support/fake-wrangler.mjs')}" "$@"\n`);
  chmodSync(fake, 0o755);
  copyFileSync(join(ROOT, 'wrangler.toml'), CONFIG);
});
after(() => {
  rmSync(CONFIG, { force: true });
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run setup -- --env production', () => {
  it('--dry-run prints every command it would run, runs none and changes no file', () => {
    const before = readFileSync(CONFIG, 'utf8');
    const r = setup(['--dry-run'], {});
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.equal(calls().length, 0, 'wrangler was not called');
    assert.equal(readFileSync(CONFIG, 'utf8'), before);
    for (const cmd of [
      'wrangler d1 create kyc-onboard',
      'wrangler queues create kyc-webhooks ',
      'wrangler queues create kyc-webhooks-dlq',
      'wrangler queues create kyc-ops-events ',
      'wrangler queues create kyc-ops-events-dlq',
      'wrangler kv namespace create',
      'wrangler d1 migrations apply DB --remote',
      ...[
        'KYC_API_KEY',
        'KYC_CUSTOMER_ID',
        'SESSION_SECRET',
        'RESULT_SIGNING_KEYS',
        'PARTNER_SEALING_KEY',
        'PARTNER_SERVER_KEYS',
        'WEBHOOK_SECRET',
      ].map((n) => `wrangler secret put ${n} --config ${CONFIG} --env production   (value on standard input)`),
    ])
      assert.ok(r.stdout.includes(`would run: ${cmd}`), `the dry run names ${cmd}:\n${r.stdout}`);
  });

  it('refuses, creating nothing, when the vendor credentials are neither in the shell nor asked for', () => {
    const { KYC_API_KEY: _k, KYC_CUSTOMER_ID: _c, ...rest } = SHELL;
    const r = setup([], rest);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /missing KYC_API_KEY, KYC_CUSTOMER_ID: give them in the shell .* or run setup in a terminal/);
    assert.deepEqual(
      calls().filter((c) => CHANGES.test(joined(c))),
      [],
      'nothing created or put',
    );
    rmSync(join(dir, 'calls.jsonl'), { force: true });
  });

  it('a first run creates what production needs, writes the ids into [env.production], puts the secrets and migrates', async () => {
    const r = setup([]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const made = calls().map(joined);
    const s = state();
    // Cloudflare: one database, the four queues, the namespace.
    assert.deepEqual(
      s.d1.map((d) => d.name),
      ['kyc-onboard'],
    );
    assert.deepEqual([...s.queues].sort(), ['kyc-ops-events', 'kyc-ops-events-dlq', 'kyc-webhooks', 'kyc-webhooks-dlq']);
    assert.equal(s.kv.length, 1);
    assert.equal(s.migrationsApplied, 1);
    // The secrets: each with --env production, its value on standard input only.
    assert.deepEqual(Object.keys(s.secrets).sort(), [
      'KYC_API_KEY',
      'KYC_CUSTOMER_ID',
      'PARTNER_SEALING_KEY',
      'PARTNER_SERVER_KEYS',
      'RESULT_SIGNING_KEYS',
      'SESSION_SECRET',
      'WEBHOOK_SECRET',
    ]);
    for (const c of calls().filter((c) => c.args[0] === 'secret' && c.args[1] === 'put')) {
      assert.ok(joined(c).endsWith('--env production'), `${joined(c)} names the environment`);
      assert.ok(c.stdin, `${joined(c)} read its value from standard input`);
    }
    for (const value of Object.values(s.secrets)) assert.ok(!made.some((m) => m.includes(value)), 'no secret on a command line');
    assert.equal(s.secrets.KYC_API_KEY, SHELL.KYC_API_KEY);
    assert.ok(!r.stdout.includes(SHELL.KYC_API_KEY), "the vendor's key is never printed");
    assert.equal(signingKeysProblem(s.secrets.RESULT_SIGNING_KEYS!), undefined);
    assert.ok(Buffer.from(s.secrets.SESSION_SECRET!, 'base64').length >= 32);
    assert.match(s.secrets.PARTNER_SERVER_KEYS!, /^kyc_sk_live_[A-Za-z0-9_-]{43}$/);
    assert.match(s.secrets.WEBHOOK_SECRET!, /^whsec_[A-Za-z0-9+/]+=*$/);
    // The partner's two secrets are shown once, for its server; the sealing key's public half is in the registry.
    assert.ok(r.stdout.includes(s.secrets.PARTNER_SERVER_KEYS!) && r.stdout.includes(s.secrets.WEBHOOK_SECRET!));
    assert.ok(!r.stdout.includes(s.secrets.SESSION_SECRET!), 'our own secrets are not printed');
    const sealing = JSON.parse(s.secrets.PARTNER_SEALING_KEY!) as { kid: string; d?: string };
    const published = JSON.parse(s.kvKeys[`${s.kv[0]!.id}/meta:sealing-public-key`]!) as { kid: string; d?: string };
    assert.equal(published.kid, sealing.kid);
    assert.equal(published.d, undefined, 'only the public half is in the registry');
    // The migrations come after the database and the secrets.
    assert.match(made.at(-1)!, /^d1 migrations apply DB --remote .*--env production$/);
    // wrangler.toml: production's ids and vars; the local stack untouched.
    const toml = readFileSync(CONFIG, 'utf8');
    const prod = toml.slice(toml.indexOf('[env.production]'));
    assert.ok(prod.includes(`database_id = "${s.d1[0]!.uuid}"`));
    assert.ok(prod.includes(`id = "${s.kv[0]!.id}"`));
    for (const n of ['KYC_BASE_URL', 'PUBLIC_ORIGIN', 'ALLOWED_ORIGINS', 'WEBHOOK_URL'] as const)
      assert.ok(prod.includes(`${n} = "${SHELL[n]}"`), `${n} in [env.production.vars]`);
    assert.ok(toml.slice(0, toml.indexOf('[env.production]')).includes('database_id = "00000000-0000-0000-0000-000000000000"'));
    // And the rehearsal finds nothing missing in what it made.
    const { unstable_readConfig } = await import('wrangler');
    const config = unstable_readConfig({ config: CONFIG, env: 'production' }, { hideWarnings: true });
    assert.deepEqual(deployProblems({ config, env: {}, remoteSecrets: new Set(Object.keys(s.secrets)), missingQueues: [] }), []);
  });

  it('a second run changes nothing that exists', () => {
    const toml = readFileSync(CONFIG, 'utf8');
    const secrets = state().secrets;
    const from = calls().length;
    const r = setup([]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const again = calls().slice(from).map(joined);
    assert.deepEqual(
      again.filter((c) => CHANGES.test(c)),
      [],
      `no create or put:\n${again.join('\n')}`,
    );
    assert.equal(readFileSync(CONFIG, 'utf8'), toml, 'wrangler.toml unchanged');
    assert.deepEqual(state().secrets, secrets);
    assert.match(r.stdout, /kept: SESSION_SECRET is set/);
    assert.ok(!r.stdout.includes(secrets.PARTNER_SERVER_KEYS!), 'the server key is not shown again');
  });

  it("reads [env.production]'s vars, D1, queues and KV as wrangler does", async () => {
    const { unstable_readConfig } = await import('wrangler');
    const w = unstable_readConfig({ config: join(ROOT, 'wrangler.toml'), env: 'production' }, { hideWarnings: true });
    const ours = environmentTables(readFileSync(join(ROOT, 'wrangler.toml'), 'utf8'), 'production');
    assert.deepEqual(ours.vars, w.vars);
    assert.deepEqual(ours.d1_databases, w.d1_databases);
    assert.deepEqual(ours.kv_namespaces, w.kv_namespaces);
    assert.deepEqual(ours.queues.producers, w.queues.producers);
    assert.deepEqual(
      ours.queues.consumers.map((c) => [c.queue, c.dead_letter_queue]),
      (w.queues.consumers ?? []).map((c: { queue: string; dead_letter_queue?: string }) => [c.queue, c.dead_letter_queue]),
    );
  });

  it('uses a database and a namespace that exist by name, instead of making a second', () => {
    copyFileSync(join(ROOT, 'wrangler.toml'), CONFIG);
    const from = calls().length;
    const r = setup([]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const again = calls().slice(from).map(joined);
    assert.ok(!again.some((c) => /^(d1 create|kv namespace create)/.test(c)), again.join('\n'));
    const s = state();
    const toml = readFileSync(CONFIG, 'utf8');
    assert.ok(toml.includes(`database_id = "${s.d1[0]!.uuid}"`) && toml.includes(`id = "${s.kv[0]!.id}"`));
  });
});
