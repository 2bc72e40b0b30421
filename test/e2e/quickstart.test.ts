/**
 * docs/quickstart.md works as written: its first block is `npm install` and
 * `npm start` (run here as `npm start -- --no-build`: `npm test` has built and
 * installed), and every later shell block runs, in order, in one bash with
 * `set -euo pipefail`, against that stack. Only the port differs from the
 * page. The last answer is the verified record.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/wrangler';
import { until } from '../support/wait';
import { assertStopped, freePort, requireBuilt } from './helpers';

/** The page's ```sh blocks, in order. */
function shellBlocks(): string[] {
  const page = readFileSync(join(ROOT, 'docs/quickstart.md'), 'utf8');
  return [...page.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe('docs/quickstart.md', () => {
  it('from npm start to a verified record, by the commands on the page', { timeout: 180_000 }, async () => {
    requireBuilt();
    const [first, ...rest] = shellBlocks();
    assert.equal(first, 'npm install\nnpm start\n', 'the page starts with npm install and npm start');
    assert.ok(rest.length >= 4, 'the page has its steps');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const state = mkdtempSync(join(tmpdir(), 'kyc-quickstart-'));
    const stack = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--no-build'], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', STATE_DIR: state },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    stack.stdout.on('data', (d) => (out += d));
    stack.stderr.on('data', (d) => (out += d));
    try {
      await until(() => out.includes('Press Ctrl-C to stop') || stack.exitCode !== null, {
        what: 'npm start to come up',
        timeoutMs: 60_000,
        detail: () => out.slice(-2000),
      });
      assert.ok(stack.exitCode === null, `npm start did not come up:\n${out.slice(-2000)}`);
      const script = ['set -euo pipefail', ...rest].join('\n').replaceAll('http://127.0.0.1:8787', url);
      const r = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
      assert.equal(r.status, 0, `the page's commands failed:\n${r.stdout}\n${r.stderr}\n${out.slice(-2000)}`);
      assert.match(r.stdout, /vrf_\w+: final \(CHECKED_SUCCESS_CLEAR\)/, 'the sandbox command says so');
      const record = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
        status: string;
        checkStatus: string;
        customerRef: string;
        person?: { name?: { familyName?: string }; dateOfBirth?: { dateOfBirth?: string } };
      };
      assert.equal(record.status, 'final');
      assert.equal(record.checkStatus, 'CHECKED_SUCCESS_CLEAR');
      assert.equal(record.customerRef, 'acct-42');
      assert.equal(record.person?.name?.familyName, 'Lovelace');
      assert.equal(record.person?.dateOfBirth?.dateOfBirth, '1990-12-10');
    } finally {
      try {
        process.kill(-stack.pid!, 'SIGINT');
      } catch {
        /* gone */
      }
      await new Promise((r) => (stack.exitCode === null ? stack.once('exit', r) : r(undefined)));
      await assertStopped(url);
      rmSync(state, { recursive: true, force: true });
    }
  });
});
