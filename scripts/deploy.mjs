#!/usr/bin/env node
// `npm run deploy [-- <wrangler deploy options>]`: the production deploy,
// `wrangler deploy --env production` (worker/entry/production.ts: no sandbox,
// no demo), after a build. It refuses to start unless KYC_BASE_URL names the
// vendor's https base URL, in wrangler.toml's [env.production.vars] or in the
// shell (`KYC_BASE_URL=https://vendor.example npm run deploy`, passed on as
// a var). A production worker without it would answer every /api request
// with 500 MISCONFIGURED. docs/configuration.md, "Deploy".
import { spawnSync } from 'node:child_process';
import { prepareProductionAssets } from './production-assets.mjs';

const ENV = { ...process.env, WRANGLER_SEND_METRICS: process.env.WRANGLER_SEND_METRICS ?? 'false' };

/** Why `value` is no production vendor base URL, or undefined when it is one. */
export function baseUrlProblem(value) {
  const v = value?.trim();
  if (!v) return 'is not set';
  if (v === 'sandbox') return 'is "sandbox": production has no sandbox';
  let url;
  try {
    url = new URL(v);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must be an https URL';
  return undefined;
}

async function configuredBaseUrl() {
  const { unstable_readConfig } = await import('wrangler');
  const config = unstable_readConfig({ config: 'wrangler.toml', env: 'production' }, { hideWarnings: true });
  return config.vars?.KYC_BASE_URL;
}

const args = process.argv.slice(2);
const fromShell = process.env.KYC_BASE_URL;
const value = fromShell ?? (await configuredBaseUrl());
const problem = baseUrlProblem(typeof value === 'string' ? value : undefined);
if (problem) {
  console.error(`npm run deploy: KYC_BASE_URL ${problem}.`);
  console.error('Set the vendor\'s https base URL in wrangler.toml ([env.production.vars] KYC_BASE_URL = "https://…"),');
  console.error('or in the shell: KYC_BASE_URL=https://vendor.example npm run deploy');
  console.error('(A sales demo on the sandbox is deployed on purpose from the top level: see docs/configuration.md.)');
  process.exit(1);
}

const run = (cmd, cmdArgs) => {
  const r = spawnSync(cmd, cmdArgs, { stdio: 'inherit', env: ENV });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
if (!args.includes('--no-build')) run('npm', ['run', '-s', 'build']);
prepareProductionAssets();
run('node_modules/.bin/wrangler', [
  'deploy',
  '--env',
  'production',
  ...(fromShell ? ['--var', `KYC_BASE_URL:${fromShell.trim()}`] : []),
  ...args.filter((a) => a !== '--no-build'),
]);
