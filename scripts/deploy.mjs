#!/usr/bin/env node
// `npm run deploy [-- <wrangler deploy options>]`: the production deploy,
// `wrangler deploy --env production` (worker/entry/production.ts: no sandbox,
// no demo), after a build. It refuses to start, naming each setting, unless
// (scripts/lib/deploy-checks.mjs):
//   - KYC_BASE_URL is the vendor's https base URL and PUBLIC_ORIGIN the
//     worker's https origin ([env.production.vars] in wrangler.toml, or the
//     shell: passed on as vars);
//   - the D1 database DB has a real id (not wrangler.toml's all-zeros placeholder);
//   - KYC_API_KEY, KYC_CUSTOMER_ID, SESSION_SECRET and RESULT_SIGNING_KEYS are
//     set: on Cloudflare already (`wrangler secret list`), or in the shell
//     (uploaded with the deploy through a private file, never a command line);
//   - there is a partner: ALLOWED_ORIGINS with PARTNER_SERVER_KEYS, or the
//     registry's partners (read on Cloudflare) with PARTNER_SEALING_KEY;
//   - webhook settings are complete and well-formed (WEBHOOK_URL with
//     WEBHOOK_SECRET, or neither), and the queues are named (and exist).
// Each refusal says what to run: mostly `npm run setup -- --env production`.
// Then it applies the D1 migrations (`wrangler d1 migrations apply DB
// --remote`) and deploys only if they applied. `--dry-run` checks the same,
// builds, bundles and applies nothing (without CLOUDFLARE_API_TOKEN it cannot
// list the secrets, the registry or the queues on Cloudflare: give the secrets
// in the shell). Vars (KYC_BASE_URL, PUBLIC_ORIGIN, ALLOWED_ORIGINS, WEBHOOK_URL)
// and every secret the shell gives go on the same way. docs/production.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareProductionAssets } from './production-assets.mjs';
import { DEPLOY_ENV, deployProblems, deploySteps, queuesOf, shellSecrets, shellVars } from './lib/deploy-checks.mjs';
import { migrations } from './lib/d1-migrations.mjs';

const ENV = {
  ...process.env,
  WRANGLER_SEND_METRICS: process.env.WRANGLER_SEND_METRICS ?? 'false',
  WRANGLER_HIDE_BANNER: process.env.WRANGLER_HIDE_BANNER ?? 'true',
};
const WRANGLER = 'node_modules/.bin/wrangler';

const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
/** `--config <file>` (or -c): another wrangler configuration, read here and passed to every wrangler command. */
function configArg() {
  const i = args.findIndex((a) => a === '--config' || a === '-c' || a.startsWith('--config='));
  if (i === -1) return { file: 'wrangler.toml', rest: args };
  const file = args[i].startsWith('--config=') ? args[i].slice('--config='.length) : args[i + 1];
  const width = args[i].startsWith('--config=') ? 1 : 2;
  return { file, rest: [...args.slice(0, i), ...args.slice(i + width)] };
}
const { file: configFile, rest: passOn } = configArg();
const configFlag = configFile === 'wrangler.toml' ? [] : ['--config', configFile];

/** Names of the secrets set on the deployed worker; undefined when they cannot be listed. */
function remoteSecretNames() {
  if (dryRun && !process.env.CLOUDFLARE_API_TOKEN) return undefined;
  const r = spawnSync(WRANGLER, ['secret', 'list', ...configFlag, '--env', DEPLOY_ENV, '--format', 'json'], { encoding: 'utf8', env: ENV });
  if (r.status !== 0) return undefined;
  try {
    return new Set(JSON.parse(r.stdout).map((s) => s.name));
  } catch {
    return undefined;
  }
}

/** Can Cloudflare be asked (a token, or a real deploy, which logs in anyway)? */
const canAsk = !(dryRun && !process.env.CLOUDFLARE_API_TOKEN);

const { unstable_readConfig } = await import('wrangler');
const config = unstable_readConfig({ config: configFile, env: DEPLOY_ENV }, { hideWarnings: true });

/** How many partners and origins the registry on Cloudflare holds; undefined when it cannot be read. */
function registryCounts() {
  if (!canAsk) return undefined;
  const kv = (config.kv_namespaces ?? []).find((k) => k.binding === 'PARTNERS');
  const target = kv?.id ? ['--namespace-id', kv.id] : ['--binding', 'PARTNERS', ...configFlag, '--env', DEPLOY_ENV];
  const count = (prefix) => {
    const r = spawnSync(WRANGLER, ['kv', 'key', 'list', '--prefix', prefix, ...target, '--remote'], { encoding: 'utf8', env: ENV });
    if (r.status !== 0) return undefined;
    try {
      return JSON.parse(r.stdout).length;
    } catch {
      return undefined;
    }
  };
  const partners = count('partner:');
  const origins = count('origin:');
  return partners === undefined || origins === undefined ? undefined : { partners, origins };
}

/** The queues wrangler.toml names that Cloudflare does not have; undefined when it cannot be asked. */
function missingQueues() {
  if (!canAsk) return undefined;
  return queuesOf(config).filter((q) => spawnSync(WRANGLER, ['queues', 'info', q], { encoding: 'utf8', env: ENV }).status !== 0);
}

const problems = deployProblems({
  config,
  env: process.env,
  remoteSecrets: remoteSecretNames(),
  registry: registryCounts(),
  missingQueues: missingQueues(),
});
if (problems.length) {
  console.error(`npm run deploy${dryRun ? ' -- --dry-run' : ''}: refusing to deploy:`);
  for (const p of problems) console.error(`  - ${p}`);
  console.error(
    `For a new deployment, \`npm run setup -- --env ${DEPLOY_ENV}\` makes all of it (\`--dry-run\` shows how). Vars go in wrangler.toml ([env.production.vars]) or the shell;`,
  );
  console.error(`secrets with \`npx wrangler secret put NAME --env ${DEPLOY_ENV}\`. See docs/production.md.`);
  console.error('(A sales demo on the sandbox is deployed on purpose from the top level: see docs/configuration.md.)');
  process.exit(1);
}

const run = (cmdArgs, why) => {
  const r = spawnSync(cmdArgs[0] === 'npm' ? 'npm' : WRANGLER, cmdArgs[0] === 'npm' ? cmdArgs.slice(1) : cmdArgs, {
    stdio: 'inherit',
    env: ENV,
  });
  if (r.status !== 0) {
    if (why) console.error(`npm run deploy: ${why}`);
    process.exit(r.status ?? 1);
  }
};
if (!args.includes('--no-build')) run(['npm', 'run', '-s', 'build']);
prepareProductionAssets();

// Vars given in the shell go on as vars; secrets given there go up with the deploy from a private file.
const vars = shellVars(process.env);
const secrets = shellSecrets(process.env);
const given = [...Object.keys(vars), ...Object.keys(secrets)];
if (given.length) console.log(`From the shell (vars as --var, secrets through a private file): ${given.join(', ')}`);
console.log(
  `Cloudflare needs: D1 ${config.d1_databases?.find((d) => d.binding === 'DB')?.database_name} and queues ${queuesOf(config).join(', ')} (\`npm run setup -- --env ${DEPLOY_ENV}\` creates them).`,
);
// wrangler warns that [env.production] does not inherit these top-level bindings: on purpose.
console.log(
  'Expected: wrangler warns below that SANDBOX_STORE and DEV_SECRETS are not in [env.production]: intended, production has no sandbox.',
);
const dir = Object.keys(secrets).length ? mkdtempSync(join(tmpdir(), 'kyc-deploy-')) : undefined;
process.once('exit', () => dir && rmSync(dir, { recursive: true, force: true }));
const secretsFile = dir ? join(dir, 'secrets.json') : undefined;
if (secretsFile) writeFileSync(secretsFile, JSON.stringify(secrets), { mode: 0o600 });

const steps = deploySteps({ dryRun, vars, secretsFile, configFlag, extraArgs: passOn.filter((a) => a !== '--no-build') });
if (steps.migrate) run(steps.migrate, 'the D1 migrations did not apply: nothing was deployed (a worker on an older schema answers 500).');
else
  console.log(
    `[dry run] a deploy applies the D1 migrations first (wrangler ${steps.wouldMigrate.join(' ')}): ${migrations('.')
      .map((m) => m.name)
      .join(', ')}`,
  );
run(steps.deploy);
