/**
 * The bench cannot rot silently: an item that cannot measure fails the run
 * with a non-zero exit naming it. `npm run bench -- --break=<item>` breaks an
 * item on purpose; the polling item (no timing, a few seconds) is broken from
 * the inside: it simulates a worker that never backs off, and its own budget
 * check (an abandoned verification ≤ 12 vendor result calls) fails the run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../..');

function bench(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--quick', '--no-write', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 180_000,
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('npm run bench', () => {
  it('exits 0 when its items measure', () => {
    const r = bench('--only=polling');
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /vendor result calls per verification/);
    assert.match(r.out, /^9\s+an abandoned verification.*\bwithin\b/m);
  });

  it('exits non-zero, naming the item and why, when an item is broken on purpose', () => {
    const r = bench('--only=polling', '--break=polling');
    assert.equal(r.status, 3, r.err);
    assert.match(r.err, /FAILED: 9 polling/);
    assert.match(r.err, /an abandoned verification cost \d+ vendor result calls \(budget 12\)/);
    assert.match(r.out, /^9\s+polling\s+error/m);
  });

  it('exits non-zero when any other item is broken, the others still measured', () => {
    const r = bench('--only=polling,outcomes', '--break=outcomes');
    assert.equal(r.status, 3, r.err);
    assert.match(r.err, /FAILED: 7 trusted outcomes/);
    assert.match(r.out, /^7\s+trusted outcomes\s+error/m);
    assert.match(r.out, /^9\s+an abandoned verification.*\bwithin\b/m);
  });

  it('exits non-zero when item 10 (a link while the first vendor is down) is broken, naming it', () => {
    const r = bench('--only=polling,failover', '--break=failover');
    assert.equal(r.status, 3, r.err);
    assert.match(r.err, /FAILED: 10 a link while the first vendor is down/);
    assert.match(r.out, /^10\s+a link while the first vendor is down\s+error/m);
    assert.match(r.out, /^9\s+an abandoned verification.*\bwithin\b/m);
  });
});
