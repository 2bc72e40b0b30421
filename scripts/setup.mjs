#!/usr/bin/env node
// `npm run setup -- --env production [--dry-run] [--config <file>]`: creates
// what a production deployment needs on Cloudflare, with wrangler, and writes
// what it made into wrangler.toml's [env.production]. In order:
//   1. the vars: KYC_BASE_URL, PUBLIC_ORIGIN, and the environment partner's
//      ALLOWED_ORIGINS and WEBHOOK_URL (from the shell, or asked in a
//      terminal), into [env.production.vars];
//   2. the D1 database of binding DB (found by name, else created), its id
//      into [[env.production.d1_databases]];
//   3. every queue [env.production] names, dead-letter queues included;
//   4. the KV namespace of binding PARTNERS (found by title, else created),
//      its id into [[env.production.kv_namespaces]];
//   5. the secrets (`wrangler secret put NAME --env production`, the value on
//      standard input, never a command line): the vendor's KYC_API_KEY and
//      KYC_CUSTOMER_ID (and KYC_CUSTOMER_CHILD_ID if given), asked for; and
//      the ones that are ours to make: SESSION_SECRET, RESULT_SIGNING_KEYS,
//      PARTNER_SEALING_KEY (its public half into the registry), and for the
//      environment partner its first PARTNER_SERVER_KEYS key (kyc_sk_live_…)
//      and WEBHOOK_SECRET, printed once;
//   6. the D1 migrations (`wrangler d1 migrations apply DB --remote`).
// Idempotent: what exists (an id in wrangler.toml, a database or namespace of
// that name, a queue, a secret already set, a var already in wrangler.toml) is
// kept, and a second run creates and puts nothing. `--dry-run` prints every
// command it would run and runs none (and changes no file).
// `wrangler` is the first on PATH (npm puts node_modules/.bin there), so a
// test can put a recording fake in front. docs/production.md.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEPLOY_ENV, baseUrlProblem, originsProblem, publicOriginProblem, webhookUrlProblem } from './lib/deploy-checks.mjs';
import { sealingKeyPair, serverKey, sessionSecret, signingKey, webhookSecret } from './lib/secrets.mjs';
import { binds, environmentTables, setTomlValue } from './lib/toml-edit.mjs';

const USAGE = 'usage: npm run setup -- --env production [--dry-run] [--config <wrangler.toml>]';
/** The D1 id wrangler.toml ships with: "not created yet". */
const PLACEHOLDER_D1_ID = /^[0-]+$/;
/** The KV namespace's title on Cloudflare. */
const KV_TITLE = 'kyc-onboard-partners';
/** Where the registry keeps the sealing key's public half (worker/partners/partner.ts). */
const SEALING_PUBLIC_KEY = 'meta:sealing-public-key';

const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const option = (name) => {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i === -1) return undefined;
  return args[i].includes('=') ? args[i].slice(name.length + 1) : args[i + 1];
};
const envName = option('--env');
const configFile = option('--config') ?? 'wrangler.toml';
if (envName !== DEPLOY_ENV || args.includes('--help')) {
  console.error(envName && envName !== DEPLOY_ENV ? `npm run setup: only --env ${DEPLOY_ENV} is set up here.\n${USAGE}` : USAGE);
  process.exit(2);
}
const configFlag = configFile === 'wrangler.toml' ? [] : ['--config', configFile];
const envFlag = ['--env', DEPLOY_ENV];

/** wrangler: the first on PATH, else this checkout's. */
function wranglerBin() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'wrangler'))) return join(dir, 'wrangler');
  }
  return 'node_modules/.bin/wrangler';
}
const WRANGLER = wranglerBin();
const ENV = {
  ...process.env,
  WRANGLER_SEND_METRICS: process.env.WRANGLER_SEND_METRICS ?? 'false',
  WRANGLER_HIDE_BANNER: process.env.WRANGLER_HIDE_BANNER ?? 'true',
};

const say = (line) => console.log(line);
const planned = [];
/** Runs wrangler (or, in a dry run, only says it would). `input` goes to its standard input and is never printed. */
function wrangler(cmd, { input, why, allowFail = false } = {}) {
  const shown = `wrangler ${cmd.join(' ')}${input !== undefined ? '   (value on standard input)' : ''}${why ? `   # ${why}` : ''}`;
  if (dryRun) {
    planned.push(shown);
    say(`  would run: ${shown}`);
    return { status: 0, stdout: '' };
  }
  say(`  $ wrangler ${cmd.join(' ')}`);
  const r = spawnSync(WRANGLER, cmd, { encoding: 'utf8', env: ENV, input: input ?? '' });
  if (r.status !== 0 && !allowFail) {
    // wrangler's own messages; they hold no value of ours (values go on standard input).
    console.error((r.stderr || r.stdout).trim().slice(-2000));
    console.error(
      `npm run setup: \`wrangler ${cmd.slice(0, 3).join(' ')}\` failed; nothing after it was done. Fix it and run setup again (it keeps what exists).`,
    );
    process.exit(1);
  }
  return r;
}

/** JSON printed by wrangler (after any notice lines it prints first). */
function jsonOf(stdout) {
  const at = stdout.search(/^\s*[[{]/m);
  try {
    return JSON.parse(at === -1 ? stdout : stdout.slice(at));
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------
// Asking: the shell's environment first; a prompt in a terminal; else a clear refusal.
const interactive = process.stdin.isTTY && !dryRun;
let rl;
async function ask(question, { secret = false } = {}) {
  rl ??= createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  if (!secret) return (await new Promise((r) => rl.question(question, r))).trim();
  // Typed secrets are not echoed.
  const write = rl._writeToOutput;
  rl._writeToOutput = (s) => (s.startsWith(question) ? write.call(rl, s) : undefined);
  const answer = await new Promise((r) => rl.question(question, r));
  rl._writeToOutput = write;
  process.stdout.write('\n');
  return answer.trim();
}
const missingInput = [];
/** A value from the shell (NAME=…), else asked in a terminal; `check` names what is wrong with it. */
async function input(name, { question, secret = false, optional = false, check }) {
  let value = process.env[name]?.trim();
  if (!value && interactive) value = await ask(`${question}${optional ? ' (empty: none)' : ''}: `, { secret });
  if (!value) {
    if (!optional && !dryRun) missingInput.push(name);
    return undefined;
  }
  const problem = check?.(value);
  if (problem) {
    console.error(`npm run setup: ${name} ${problem}.`);
    process.exit(1);
  }
  return value;
}

// ---------------------------------------------------------------------------
let toml = readFileSync(configFile, 'utf8');
const config = environmentTables(toml, DEPLOY_ENV);
const original = toml;

say(
  dryRun
    ? `npm run setup -- --env ${DEPLOY_ENV} --dry-run: every command a setup would run (nothing is run, no file is changed).`
    : `npm run setup -- --env ${DEPLOY_ENV}: what this deployment needs, on Cloudflare and in ${configFile}.`,
);

// 1. Vars.
say(`\n1. Vars, in ${configFile} [env.${DEPLOY_ENV}.vars]`);
const VARS = [
  ['KYC_BASE_URL', { question: "The vendor's https base URL (KYC_BASE_URL)", check: baseUrlProblem }],
  [
    'PUBLIC_ORIGIN',
    { question: "This worker's public https origin, e.g. https://kyc.example.com (PUBLIC_ORIGIN)", check: publicOriginProblem },
  ],
  [
    'ALLOWED_ORIGINS',
    {
      question: "The environment partner's page origins, comma-separated (ALLOWED_ORIGINS; empty: registry partners only)",
      optional: true,
      check: originsProblem,
    },
  ],
  [
    'WEBHOOK_URL',
    { question: "The environment partner's webhook endpoint, https (WEBHOOK_URL)", optional: true, check: webhookUrlProblem },
  ],
];
const vars = {};
for (const [name, how] of VARS) {
  const kept = config.vars?.[name];
  if (typeof kept === 'string' && kept.trim()) {
    vars[name] = kept;
    if (process.env[name]?.trim() && process.env[name].trim() !== kept)
      say(`  ${name}: kept as ${configFile} has it (the shell's other value is not written; edit ${configFile} to change it)`);
    else say(`  ${name}: kept (${kept})`);
    continue;
  }
  if (name === 'WEBHOOK_URL' && !vars.ALLOWED_ORIGINS && !process.env.WEBHOOK_URL?.trim()) continue;
  const value = await input(name, how);
  if (!value) {
    say(`  ${name}: ${how.optional ? 'none' : dryRun ? `from the shell (${name}=…) or asked` : 'missing'}`);
    continue;
  }
  vars[name] = value;
  toml = setTomlValue(toml, `[env.${DEPLOY_ENV}.vars]`, name, value);
  say(`  ${name} = ${JSON.stringify(value)}${dryRun ? '   (would be written)' : ''}`);
}
if (vars.WEBHOOK_URL && !vars.ALLOWED_ORIGINS) {
  console.error(
    "npm run setup: WEBHOOK_URL is the environment partner's: give ALLOWED_ORIGINS too (registry partners have their own webhook settings: npm run partners).",
  );
  process.exit(1);
}

// The vendor's credentials are asked for before anything is created, so a run never stops half-way for them.
const secretNames = new Set();
if (!dryRun) {
  const listed = wrangler(['secret', 'list', ...configFlag, ...envFlag, '--format', 'json'], { allowFail: true });
  // A worker not deployed yet has no secrets to list.
  for (const s of (listed.status === 0 && jsonOf(listed.stdout)) || []) secretNames.add(s.name);
}
const vendor = {};
for (const [name, question, optional] of [
  ['KYC_API_KEY', "The idv vendor's API key (KYC_API_KEY)", false],
  ['KYC_CUSTOMER_ID', "The idv vendor's customer id (KYC_CUSTOMER_ID)", false],
  ['KYC_CUSTOMER_CHILD_ID', "The idv vendor's child id, only if you onboard as a child (KYC_CUSTOMER_CHILD_ID)", true],
]) {
  if (secretNames.has(name)) continue;
  const value = await input(name, { question, secret: true, optional });
  if (value) vendor[name] = value;
}
rl?.close();
if (missingInput.length) {
  console.error(
    `npm run setup: missing ${missingInput.join(', ')}: give ${missingInput.length > 1 ? 'them' : 'it'} in the shell (${missingInput[0]}=… npm run setup -- --env ${DEPLOY_ENV}) or run setup in a terminal, which asks. Nothing was created.`,
  );
  process.exit(1);
}

// 2. D1.
const d1 = (config.d1_databases ?? []).find((d) => d.binding === 'DB');
if (!d1) {
  console.error(`npm run setup: [env.${DEPLOY_ENV}] has no D1 binding DB: restore it from wrangler.toml in the repository.`);
  process.exit(1);
}
say(`\n2. D1 database ${d1.database_name} (binding DB)`);
if (d1.database_id && !PLACEHOLDER_D1_ID.test(d1.database_id)) {
  say(`  kept: ${configFile} has its id (${d1.database_id})`);
} else {
  const findDb = (again) =>
    (jsonOf(wrangler(['d1', 'list', '--json'], { why: again && 'its id' }).stdout) ?? []).find((d) => d.name === d1.database_name)?.uuid;
  let id = findDb();
  if (!id) {
    wrangler(['d1', 'create', d1.database_name], { why: `if no database named ${d1.database_name} exists` });
    id = findDb(true);
    if (!id && !dryRun) {
      console.error(`npm run setup: wrangler created ${d1.database_name} but does not list it; run setup again.`);
      process.exit(1);
    }
  } else say(`  found on Cloudflare: ${id}`);
  toml = setTomlValue(toml, `[[env.${DEPLOY_ENV}.d1_databases]]`, 'database_id', id ?? '<its id>', binds('DB'));
  say(`  its id into [[env.${DEPLOY_ENV}.d1_databases]]${dryRun ? '   (would be written)' : `: ${id}`}`);
}

// 3. Queues.
const queueNames = [
  ...new Set([
    ...(config.queues?.producers ?? []).map((p) => p.queue),
    ...(config.queues?.consumers ?? []).flatMap((c) => [c.queue, c.dead_letter_queue]),
  ]),
].filter(Boolean);
say(`\n3. Queues: ${queueNames.join(', ')}`);
for (const q of queueNames) {
  const exists = dryRun ? false : wrangler(['queues', 'info', q], { allowFail: true }).status === 0;
  if (dryRun) wrangler(['queues', 'info', q], { why: 'does it exist?' });
  if (exists) say(`  kept: ${q}`);
  else wrangler(['queues', 'create', q], { why: dryRun ? 'if it does not exist' : undefined });
}

// 4. KV.
const kv = (config.kv_namespaces ?? []).find((k) => k.binding === 'PARTNERS');
say('\n4. KV namespace of binding PARTNERS (the partner registry)');
let kvId = kv?.id;
if (kvId) {
  say(`  kept: ${configFile} has its id (${kvId})`);
} else {
  const findKv = (again) =>
    (jsonOf(wrangler(['kv', 'namespace', 'list'], { why: again && 'its id' }).stdout) ?? []).find((n) => n.title === KV_TITLE)?.id;
  kvId = findKv();
  if (!kvId) {
    wrangler(['kv', 'namespace', 'create', KV_TITLE], { why: `if no namespace titled ${KV_TITLE} exists` });
    kvId = findKv(true);
    if (!kvId && !dryRun) {
      console.error(`npm run setup: wrangler created ${KV_TITLE} but does not list it; run setup again.`);
      process.exit(1);
    }
  } else say(`  found on Cloudflare: ${kvId}`);
  toml = setTomlValue(toml, `[[env.${DEPLOY_ENV}.kv_namespaces]]`, 'id', kvId ?? '<its id>', binds('PARTNERS'));
  say(`  its id into [[env.${DEPLOY_ENV}.kv_namespaces]]${dryRun ? '   (would be written)' : `: ${kvId}`}`);
}

// wrangler.toml now names everything the secrets and migrations below act on.
if (!dryRun && toml !== original) {
  writeFileSync(configFile, toml);
  say(`\n${configFile}: [env.${DEPLOY_ENV}] updated (commit it: ids and vars are not secrets).`);
}

// 5. Secrets.
say(`\n5. Secrets of the worker (wrangler secret put NAME --env ${DEPLOY_ENV}; values on standard input)`);
if (dryRun) wrangler(['secret', 'list', ...configFlag, ...envFlag, '--format', 'json'], { why: 'which are set already (they are kept)' });
const shownOnce = [];
const put = (name, value, what) => {
  if (!dryRun && secretNames.has(name)) {
    say(`  kept: ${name} is set`);
    return false;
  }
  wrangler(['secret', 'put', name, ...configFlag, ...envFlag], {
    input: dryRun ? '' : value,
    why: dryRun ? `${what}, if not set` : undefined,
  });
  return true;
};
for (const name of ['KYC_API_KEY', 'KYC_CUSTOMER_ID', 'KYC_CUSTOMER_CHILD_ID']) {
  if (vendor[name] || dryRun) put(name, vendor[name], name === 'KYC_CUSTOMER_CHILD_ID' ? 'asked, optional' : 'asked');
  else if (secretNames.has(name)) say(`  kept: ${name} is set`);
}
put('SESSION_SECRET', sessionSecret(), 'made here: 32 random bytes');
put('RESULT_SIGNING_KEYS', JSON.stringify([await signingKey()]), 'made here: a P-256 signing key');
if (dryRun || !secretNames.has('PARTNER_SEALING_KEY')) {
  const { privateJwk, publicJwk } = await sealingKeyPair();
  put('PARTNER_SEALING_KEY', JSON.stringify(privateJwk), "made here: the registry's sealing key");
  // The public half is public: the registry's operators seal partner secrets to it.
  const ns = kvId ? ['--namespace-id', kvId] : ['--binding', 'PARTNERS', ...configFlag, ...envFlag];
  wrangler(['kv', 'key', 'put', SEALING_PUBLIC_KEY, dryRun ? "'<its public JWK>'" : JSON.stringify(publicJwk), ...ns, '--remote'], {
    why: dryRun ? 'its public half, into the registry' : undefined,
  });
} else say('  kept: PARTNER_SEALING_KEY is set');
if (vars.ALLOWED_ORIGINS || dryRun) {
  const key = serverKey('live');
  if (put('PARTNER_SERVER_KEYS', key, "made here: the environment partner's first kyc_sk_live_ key, printed once; with ALLOWED_ORIGINS"))
    shownOnce.push(['PARTNER_SERVER_KEYS (its server key for /v1)', key]);
}
if (vars.WEBHOOK_URL || dryRun) {
  const secret = webhookSecret();
  if (put('WEBHOOK_SECRET', secret, "made here: the environment partner's whsec_ secret, printed once; with WEBHOOK_URL"))
    shownOnce.push(['WEBHOOK_SECRET (verifies its webhooks)', secret]);
}

// 6. Migrations.
say('\n6. D1 migrations');
wrangler(['d1', 'migrations', 'apply', 'DB', '--remote', ...configFlag, ...envFlag], {
  why: dryRun ? 'only those not applied yet' : undefined,
});

if (dryRun) {
  say(`\n[dry run] ${planned.length} commands; nothing was run and ${configFile} is unchanged.`);
} else {
  if (shownOnce.length) {
    say("\nFor the environment partner's server, shown this once (store them in its secret manager; they are not kept here):");
    for (const [what, value] of shownOnce) say(`  ${what}: ${value}`);
  }
  say('\nSet up. Next: the rehearsal, then the deploy:\n  npm run deploy -- --dry-run\n  npm run deploy');
  if (!vars.ALLOWED_ORIGINS)
    say('No environment partner (no ALLOWED_ORIGINS): add a partner first with `npm run partners -- add … --remote`.');
}
