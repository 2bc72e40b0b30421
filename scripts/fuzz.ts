/**
 * `npm run fuzz -- [--runs N] [--seed S] [--only onboardingLink|result|pages]`:
 * the property tests of `test/fuzz/` run long, against the real worker app
 * with msw as the vendor. A failure prints the shrunk counterexample and the
 * seed (and path) that replays it; the exit code is 1.
 */
import { parseArgs } from 'node:util';
import { check, properties, type PropertyName } from '../test/fuzz/properties';
import { startHarness, stopHarness } from '../test/worker/harness';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '10000' }, seed: { type: 'string' }, only: { type: 'string', multiple: true } },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  console.error('usage: npm run fuzz -- [--runs N] [--seed S] [--only NAME]');
  process.exit(2);
}
const names = (values.only ?? Object.keys(properties)) as PropertyName[];
for (const n of names) {
  if (!(n in properties)) {
    console.error(`unknown property ${n}; one of ${Object.keys(properties).join(', ')}`);
    process.exit(2);
  }
}

// The harness records answers and log lines (for the echo check); the fuzz
// run's own report goes to stderr so it is not recorded.
startHarness();
let failed = false;
for (const name of names) {
  const started = performance.now();
  try {
    await check(name, runs, seed);
    process.stderr.write(`ok   ${name}: seed ${seed}, ${Math.round(performance.now() - started)} ms\n`);
  } catch (err) {
    failed = true;
    process.stderr.write(`FAIL ${name}\n${(err as Error).message}\n`);
  }
}
stopHarness();
process.exit(failed ? 1 : 0);
