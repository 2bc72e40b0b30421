#!/usr/bin/env node
// `npm test`: every check, in the order a failure is cheapest to find.
// Each step is one npm script; all steps run, and the run fails if any did.
import { spawnSync } from 'node:child_process';

const steps = [
  ['chromium', ['node', 'scripts/ensure-chromium.mjs']],
  ['typecheck', ['npm', 'run', '-s', 'typecheck']],
  ['binding types match wrangler.toml (wrangler types)', ['npm', 'run', '-s', 'check:types']],
  ['format check (prettier)', ['npm', 'run', '-s', 'format:check']],
  ['lint (eslint: type-checked rules, import boundaries)', ['npm', 'run', '-s', 'lint']],
  ['build', ['npm', 'run', '-s', 'build']],
  ['docs: links, readers, generated element API', ['npm', 'run', '-s', 'check:docs']],
  ['field rules (controlled clock)', ['npm', 'run', '-s', 'test:rules']],
  ['worker tests (node + workerd)', ['npm', 'run', '-s', 'test:worker']],
  ['sandbox tests', ['npm', 'run', '-s', 'test:sandbox']],
  ['node suites with the clock a year ahead', ['npm', 'run', '-s', 'test:clock-ahead']],
  ['widget tests (Chromium)', ['npm', 'run', '-s', 'test:widget']],
  ['widget import in node (SSR safety)', ['npm', 'run', '-s', 'test:widget:ssr']],
  ['widget size budget', ['npm', 'run', '-s', 'size:widget']],
  ['hardening tests (workerd)', ['npm', 'run', '-s', 'test:hardening']],
  ['end-to-end tests (Chromium + workerd)', ['npm', 'run', '-s', 'test:e2e']],
  ['widget package: npm pack, fresh Vite + React and Vue apps', ['npm', 'run', '-s', 'test:package']],
  ['deploy dry run + worker bundle budget', ['npm', 'run', '-s', 'check:deploy']],
  ['bench self-test: a broken item fails the run', ['npm', 'run', '-s', 'test:bench']],
  // Every item must measure (a broken one exits non-zero, named); timings are reported, never enforced.
  ['bench, quick: every item measures', ['npm', 'run', '-s', 'bench', '--', '--quick']],
];

const only = process.argv.slice(2);
const results = [];
for (const [name, [cmd, ...args]] of steps) {
  if (only.length && !only.some((o) => name.startsWith(o))) continue;
  const started = Date.now();
  console.log(`\n━━ ${name} ━━`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
  const ok = r.status === 0;
  results.push({ name, ok, seconds: Math.round((Date.now() - started) / 100) / 10 });
  // Without a browser or a typecheck nothing after is meaningful.
  if (!ok && (name === 'chromium' || name === 'build')) break;
}

console.log('\n━━ summary ━━');
for (const r of results) console.log(`${r.ok ? '✔' : '✘'} ${r.name} (${r.seconds} s)`);
const failed = results.filter((r) => !r.ok);
if (failed.length) {
  console.log(`\nnpm test FAILED: ${failed.map((f) => f.name).join(', ')}`);
  process.exit(1);
}
console.log('\nnpm test: all steps green');
