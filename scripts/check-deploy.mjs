#!/usr/bin/env node
// `npm run check:deploy`: bundles the worker exactly as `wrangler deploy`
// would (--dry-run: no login, nothing uploaded) and fails if the bundle is
// over its budget. Prints the sizes; `--json` prints them as JSON (bench).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** Budget for the deployed worker, gzip (docs/benchmarks.md: why not 100 KB). */
export const WORKER_GZIP_BUDGET = 128 * 1024;

mkdirSync('dist/public', { recursive: true }); // wrangler refuses to start without the assets dir
const out = mkdtempSync(join(tmpdir(), 'kyc-deploy-'));
const r = spawnSync('node_modules/.bin/wrangler', ['deploy', '--dry-run', '--outdir', out], {
  encoding: 'utf8',
  env: {
    ...process.env,
    CI: 'true',
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    NO_COLOR: '1',
  },
});
if (r.status !== 0) {
  console.error(r.stdout, r.stderr);
  console.error('wrangler deploy --dry-run failed');
  process.exit(1);
}
const files = readdirSync(out).filter((f) => f.endsWith('.js'));
let raw = 0;
let gz = 0;
for (const f of files) {
  const buf = readFileSync(join(out, f));
  raw += statSync(join(out, f)).size;
  gz += gzipSync(buf, { level: 9 }).length;
}
rmSync(out, { recursive: true, force: true });
const result = { files, rawBytes: raw, gzipBytes: gz, budgetGzipBytes: WORKER_GZIP_BUDGET, withinBudget: gz <= WORKER_GZIP_BUDGET };
if (process.argv.includes('--json')) {
  console.log(JSON.stringify(result));
} else {
  console.log(`worker bundle: ${raw} bytes raw, ${gz} bytes gzip (budget ${WORKER_GZIP_BUDGET} gzip)`);
}
if (!result.withinBudget) {
  console.error(`worker bundle is ${gz - WORKER_GZIP_BUDGET} bytes gzip over its budget`);
  process.exit(1);
}
