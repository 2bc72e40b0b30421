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
//     (uploaded with the deploy through a private file, never a command line).
// Then it applies the D1 migrations (`wrangler d1 migrations apply DB
// --remote`) and deploys only if they applied. `--dry-run` checks the same,
// builds, bundles and applies nothing (without CLOUDFLARE_API_TOKEN it cannot
// list the secrets on Cloudflare: give them in the shell). docs/configuration.md, "Deploy".
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareProductionAssets } from './production-assets.mjs';
import { DEPLOY_ENV, deployProblems, deploySteps, shellSecrets } from './lib/deploy-checks.mjs';
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

const { unstable_readConfig } = await import('wrangler');
const config = unstable_readConfig({ config: configFile, env: DEPLOY_ENV }, { hideWarnings: true });
const problems = deployProblems({ config, env: process.env, remoteSecrets: remoteSecretNames() });
if (problems.length) {
  console.error('npm run deploy: refusing to deploy:');
  for (const p of problems) console.error(`  - ${p}`);
  console.error(
    'Vars go in wrangler.toml ([env.production.vars]) or the shell (KYC_BASE_URL=https://… PUBLIC_ORIGIN=https://… npm run deploy);',
  );
  console.error(`secrets with \`npx wrangler secret put NAME --env ${DEPLOY_ENV}\`. See docs/configuration.md, "Deploy".`);
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
const vars = Object.fromEntries(
  ['KYC_BASE_URL', 'PUBLIC_ORIGIN'].filter((n) => process.env[n]?.trim()).map((n) => [n, process.env[n].trim()]),
);
const secrets = shellSecrets(process.env);
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
