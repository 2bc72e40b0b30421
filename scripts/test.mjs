#!/usr/bin/env node
// `npm test`: every check, in the order a failure is cheapest to find.
// Each step is one npm script; all steps run, and the run fails if any did.
//
// Two lanes: most steps run one after another with their output live; the
// steps marked `side` (the node-only clock-ahead suites, the package apps,
// which spend much of their time waiting on the npm registry, and the widget
// tests in Firefox ESR and WebKitGTK) run after
// the build, alongside the main lane, one at a time, their output printed
// whole when they end. Steps marked `alone` (load, timing-sensitive and
// browser-heavy suites) wait until the side lane is done, so nothing runs
// beside them. On a 2-core machine this takes minutes off the wall time.
import { spawn } from 'node:child_process';

/** [name, command, options] */
const steps = [
  ['chromium', ['node', 'scripts/ensure-chromium.mjs']],
  ['engines: Firefox ESR and WebKitGTK', ['node', 'scripts/ensure-engines.mjs']],
  ['typecheck', ['npm', 'run', '-s', 'typecheck']],
  ['binding types match wrangler.toml (wrangler types)', ['npm', 'run', '-s', 'check:types']],
  ['format check (prettier)', ['npm', 'run', '-s', 'format:check']],
  ['lint (eslint: type-checked rules, import boundaries)', ['npm', 'run', '-s', 'lint']],
  ['build', ['npm', 'run', '-s', 'build']],
  ['docs: links, readers, generated element API', ['npm', 'run', '-s', 'check:docs']],
  ['field rules (controlled clock)', ['npm', 'run', '-s', 'test:rules']],
  ['worker tests (node + workerd)', ['npm', 'run', '-s', 'test:worker']],
  ['sandbox tests', ['npm', 'run', '-s', 'test:sandbox']],
  ['node suites with the clock a year ahead', ['npm', 'run', '-s', 'test:clock-ahead'], { side: true }],
  ['widget tests (Chromium)', ['npm', 'run', '-s', 'test:widget']],
  ['widget import in node (SSR safety)', ['npm', 'run', '-s', 'test:widget:ssr']],
  ['widget size budget', ['npm', 'run', '-s', 'size:widget']],
  ['widget package: npm pack, fresh Vite + React and Vue apps', ['npm', 'run', '-s', 'test:package'], { side: true }],
  // Beside the main lane, where it costs least: its pages spend much of their time waiting, as the package apps do on
  // the registry; the `alone` steps wait for it (measured in docs/testing.md, three engines).
  ['widget tests (Firefox ESR, WebKitGTK)', ['npm', 'run', '-s', 'test:widget:firefox-webkit'], { side: true }],
  ['hardening tests (workerd)', ['npm', 'run', '-s', 'test:hardening'], { alone: true }],
  ['end-to-end tests (Chromium + workerd)', ['npm', 'run', '-s', 'test:e2e'], { alone: true }],
  ['deploy dry run + worker bundle budget', ['npm', 'run', '-s', 'check:deploy']],
  ['bench self-test: a broken item fails the run', ['npm', 'run', '-s', 'test:bench'], { alone: true }],
  // Every item must measure (a broken one exits non-zero, named); timings are reported, never enforced.
  ['bench, quick: every item measures', ['npm', 'run', '-s', 'bench', '--', '--quick'], { alone: true }],
];

const only = process.argv.slice(2);
const chosen = steps.filter(([name]) => !only.length || only.some((o) => name.startsWith(o)));
const results = [];
const started = Date.now();

/** Runs one step; `quiet` collects its output and prints it whole at the end. */
function run(name, [cmd, ...args], quiet) {
  const t0 = Date.now();
  if (!quiet) console.log(`\n━━ ${name} ━━`);
  return new Promise((done) => {
    const child = spawn(cmd, args, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
    let out = '';
    if (quiet) {
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
    }
    child.on('close', (code) => {
      const r = { name, ok: code === 0, seconds: Math.round((Date.now() - t0) / 100) / 10 };
      results.push(r);
      if (quiet) console.log(`\n━━ ${name} (ran alongside; ${r.ok ? 'passed' : 'FAILED'}) ━━\n${out}━━ end of ${name} ━━`);
      done(r);
    });
  });
}

const side = chosen.filter(([, , o]) => o?.side);
let sideDone = Promise.resolve();
let stop = false;
for (const [name, command, options] of chosen) {
  if (options?.side) continue;
  if (stop) break;
  if (options?.alone) await sideDone;
  const r = await run(name, command, false);
  // Without a browser or a build nothing after is meaningful.
  if (!r.ok && (name === 'chromium' || name === 'build')) stop = true;
  // The widget test runs use this build's bundle instead of rebuilding it (two of them run at once).
  if (name === 'build' && r.ok) process.env.KYC_WIDGET_BUILT = '1';
  if (name === 'build' && r.ok && side.length) {
    sideDone = (async () => {
      for (const [sname, scommand] of side) await run(sname, scommand, true);
    })();
  }
}
// A run of only side steps (node scripts/test.mjs sandbox) has no build to wait for.
if (!stop && !chosen.some(([name]) => name === 'build')) {
  for (const [sname, scommand] of side) await run(sname, scommand, false);
}
await sideDone;

console.log('\n━━ summary ━━');
const order = chosen.map(([name]) => name);
results.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
for (const r of results) console.log(`${r.ok ? '✔' : '✘'} ${r.name} (${r.seconds} s)`);
console.log(`wall time: ${Math.round((Date.now() - started) / 1000)} s`);
const failed = results.filter((r) => !r.ok);
if (failed.length) {
  console.log(`\nnpm test FAILED: ${failed.map((f) => f.name).join(', ')}`);
  process.exit(1);
}
console.log('\nnpm test: all steps green');
