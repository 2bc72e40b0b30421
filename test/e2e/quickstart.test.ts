/**
 * docs/quickstart.md works as written: its first block is `npm install` and
 * `npm start` (run here as `npm start -- --no-build`: `npm test` has built and
 * installed), and every later shell block up to step 6 runs, in order, in one
 * bash with `set -euo pipefail`, against that stack; its last answer is the
 * verified record. Step 6 ("Your own app on its own origin") runs in a second
 * bash: its first block appends the environment partner to `.dev.vars`, then
 * `npm start` is restarted as the page says, with what that block wrote, and
 * the rest of the step runs against it: the app's own key and origin make a
 * link. Only the ports and where `.dev.vars` is written differ from the page
 * (the test writes a file of its own, and hands its lines to `npm start` as
 * environment, which the page says works the same).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/wrangler';
import { assertStopped, freePort, requireBuilt } from './helpers';
import { until } from '../support/wait';

const OWN_APP = '## 6. Your own app on its own origin';

/** The page's ```sh blocks, in order: before step 6, and in it. */
function shellBlocks(): { before: string[]; ownApp: string[] } {
  const page = readFileSync(join(ROOT, 'docs/quickstart.md'), 'utf8');
  const at = page.indexOf(OWN_APP);
  assert.ok(at > 0, `the page has "${OWN_APP}"`);
  const blocks = (text: string) => [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const next = page.indexOf('\n## ', at + OWN_APP.length);
  return { before: blocks(page.slice(0, at)), ownApp: blocks(page.slice(at, next === -1 ? undefined : next)) };
}

/** `npm start -- --no-build` on a port, its output gathered; resolves once it is ready. */
async function startStack(port: number, state: string, env: Record<string, string> = {}) {
  const stack = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--no-build'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', STATE_DIR: state, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const log = { out: '' };
  stack.stdout.on('data', (d) => (log.out += d));
  stack.stderr.on('data', (d) => (log.out += d));
  // A loaded machine: wrangler dev can take a while to start.
  const up = await until(() => log.out.includes('Press Ctrl-C to stop') || stack.exitCode !== null, {
    what: 'npm start to come up',
    timeoutMs: 150_000,
  }).catch(() => false);
  if (!up || stack.exitCode !== null) {
    await stop(stack);
    assert.fail(`npm start did not come up:\n${log.out.slice(-2000)}`);
  }
  return { stack, log };
}

async function stop(stack: ChildProcess) {
  try {
    process.kill(-stack.pid!, 'SIGINT');
  } catch {
    /* gone */
  }
  await new Promise((r) => (stack.exitCode === null ? stack.once('exit', r) : r(undefined)));
}

describe('docs/quickstart.md', () => {
  it(
    'from npm start to a verified record, then your own app on its own origin, by the commands on the page',
    { timeout: 480_000 },
    async () => {
      requireBuilt();
      const { before, ownApp } = shellBlocks();
      const [first, ...rest] = before;
      assert.equal(first, 'npm install\nnpm start\n', 'the page starts with npm install and npm start');
      assert.ok(rest.length >= 4, 'the page has its steps');
      assert.ok(ownApp.length >= 2, 'step 6 has its commands');
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const state = mkdtempSync(join(tmpdir(), 'kyc-quickstart-'));
      const { stack, log } = await startStack(port, state);
      try {
        const script = ['set -euo pipefail', ...rest].join('\n').replaceAll('http://127.0.0.1:8787', url);
        const r = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
        assert.equal(r.status, 0, `the page's commands failed:\n${r.stdout}\n${r.stderr}\n${log.out.slice(-2000)}`);
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
        await stop(stack);
        await assertStopped(url);
      }

      // Step 6: the first block writes the environment partner into .dev.vars (here a file of the test's own);
      // npm start restarts with it; then the rest of the step runs in the same bash.
      const port2 = await freePort();
      const url2 = `http://127.0.0.1:${port2}`;
      const appOrigin = `http://127.0.0.1:${await freePort()}`; // nothing listens there: webhooks wait in the queue
      const devVars = join(state, 'dev.vars');
      const ready = join(state, 'restarted');
      const [write, ...after] = ownApp;
      assert.match(write!, />> \.dev\.vars/, 'the first block of step 6 writes .dev.vars');
      const script2 = [
        'set -euo pipefail',
        write!.replaceAll('.dev.vars', devVars),
        `while [ ! -e ${ready} ]; do sleep 0.1; done`,
        ...after,
      ]
        .join('\n')
        .replaceAll('http://127.0.0.1:8787', url2)
        .replaceAll('http://127.0.0.1:3000', appOrigin);
      const bash = spawn('bash', ['-c', script2], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let out2 = '';
      bash.stdout.on('data', (d) => (out2 += d));
      bash.stderr.on('data', (d) => (out2 += d));
      let second: Awaited<ReturnType<typeof startStack>> | undefined;
      try {
        const written = () => existsSync(devVars) && readFileSync(devVars, 'utf8').includes('WEBHOOK_SECRET=');
        await until(() => written() || bash.exitCode !== null, {
          what: 'step 6 to write .dev.vars',
          timeoutMs: 60_000,
          detail: () => out2,
        });
        assert.ok(written(), `step 6 wrote no .dev.vars:\n${out2}`);
        const vars = Object.fromEntries(
          readFileSync(devVars, 'utf8')
            .trim()
            .split('\n')
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        );
        assert.deepEqual(Object.keys(vars).sort(), ['ALLOWED_ORIGINS', 'PARTNER_SERVER_KEYS', 'WEBHOOK_SECRET', 'WEBHOOK_URL']);
        assert.match(vars.PARTNER_SERVER_KEYS!, /^kyc_sk_test_[A-Za-z0-9_-]{43}$/);
        second = await startStack(port2, state, vars);
        assert.match(second.log.out, /settings from the environment: .*ALLOWED_ORIGINS/);
        writeFileSync(ready, '');
        const code = await new Promise((r) => (bash.exitCode === null ? bash.once('exit', r) : r(bash.exitCode)));
        assert.equal(code, 0, `step 6's commands failed:\n${out2}\n${second.log.out.slice(-2000)}`);
        const link = JSON.parse(out2.trim().split('\n').at(-1)!) as { verificationId?: string; url?: string };
        assert.match(link.verificationId ?? '', /^vrf_/, `a link for the app's own verification:\n${out2}`);
        assert.ok(!second.log.out.includes(vars.PARTNER_SERVER_KEYS!), "the worker's log holds no server key");
      } finally {
        try {
          if (bash.exitCode === null) process.kill(-bash.pid!, 'SIGTERM');
        } catch {
          /* gone */
        }
        if (second) await stop(second.stack);
        await assertStopped(url2);
        rmSync(state, { recursive: true, force: true });
      }
    },
  );
});
