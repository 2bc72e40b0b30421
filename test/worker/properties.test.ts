/**
 * Property-based fuzzing of every route (`test/fuzz/`), with a fixed seed so
 * `npm test` is repeatable; `npm run fuzz -- --runs N` explores further.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { check, properties, type PropertyName } from '../fuzz/properties';
import { startHarness, stopHarness } from './harness';

const SEED = 20261123;
const RUNS = 600;

before(startHarness);
after(stopHarness);

describe('properties of every route (fast-check, fixed seed)', () => {
  for (const name of Object.keys(properties) as PropertyName[]) {
    it(`${name}: never a 5xx, an ErrorObject naming a field, no vendor call for refused input, no echo`, async () => {
      await check(name, RUNS, SEED);
    });
  }
});

describe('npm run fuzz', () => {
  it('runs the properties with the given runs and seed, and says which passed', async () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/fuzz.ts', '--runs', '40', '--seed', '7'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    for (const name of Object.keys(properties)) assert.match(run.stderr, new RegExp(`^ok +${name}: seed 7,`, 'm'));
    const bad = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/fuzz.ts', '--only', 'nothing'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
  });
});
