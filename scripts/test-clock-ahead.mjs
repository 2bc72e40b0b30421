#!/usr/bin/env node
// `npm run test:clock-ahead`: the node suites again with this process's clock
// a year ahead (test/support/clock-ahead.mjs), to show they do not depend on
// today's date. Files that talk to workerd are left out: workerd is another
// process with the real clock, and those tests derive their dates from today.
// So are d1-schema (workerd through Miniflare) and the scripts' own tests,
// setup-script, deploy-script and partners-cli: all their work happens in
// child processes (scripts/setup.mjs, deploy.mjs, partners.ts, wrangler and
// workerd), which keep the real clock; a second run here would only cost CI
// time (a minute for partners-cli alone).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const files = ['test/rules', 'test/worker', 'test/sandbox'].flatMap((dir) =>
  readdirSync(dir)
    .filter(
      (f) =>
        f.endsWith('.test.ts') && !/workerd|durable-store|worker-default-vendor|d1-schema|setup-script|deploy-script|partners-cli/.test(f),
    )
    .map((f) => `${dir}/${f}`),
);
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--import', './test/support/clock-ahead.mjs', '--test', '--test-force-exit', '--test-timeout=300000', ...files],
  {
    stdio: 'inherit',
    env: { ...process.env, KYC_CLOCK_AHEAD_DAYS: process.env.KYC_CLOCK_AHEAD_DAYS ?? '366' },
  },
);
process.exit(r.status ?? 1);
