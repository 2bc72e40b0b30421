/**
 * examples/partner-backend-python runs its own suite (Python's unittest)
 * against `npm start`'s stack, set up as docs/quickstart.md's "Your own app"
 * step says: the app's origin as the environment partner (ALLOWED_ORIGINS),
 * a `kyc_sk_test_` server key (PARTNER_SERVER_KEYS), and webhooks to the app
 * (WEBHOOK_URL, WEBHOOK_SECRET). The suite covers create, resume, webhook,
 * token, read-back, a failed check and a second attempt.
 *
 * It needs Debian's python3 with python3-flask and python3-jwt (`.ci/run`
 * installs them). Where they are missing it is skipped, saying so, except in
 * CI (CI=true), where a missing package fails: the example must run there.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/wrangler';
import { assertStopped, freePort, requireBuilt } from './helpers';
import { until } from '../support/wait';

const EXAMPLE = join(ROOT, 'examples/partner-backend-python');

/** Debian's python3 (where apt's packages are), else the first on PATH; and what it lacks. */
function python(): { bin: string; missing?: string } {
  const bin = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  const r = spawnSync(bin, ['-c', 'import flask, jwt, cryptography, werkzeug'], { encoding: 'utf8' });
  if (r.error) return { bin, missing: 'python3' };
  return r.status === 0 ? { bin } : { bin, missing: (r.stderr.trim().split('\n').at(-1) ?? '').replace(/^ModuleNotFoundError: /, '') };
}

const py = python();
const skip =
  py.missing && process.env.CI !== 'true'
    ? `the Python example needs python3 with python3-flask and python3-jwt (apt-get install -y python3-flask python3-jwt); here: ${py.missing}`
    : false;
if (skip) console.log(`# skipped: ${skip}`);

describe('examples/partner-backend-python', () => {
  it('its suite passes against npm start, with the app as the environment partner', { timeout: 300_000, skip }, async () => {
    assert.equal(py.missing, undefined, `CI must run the Python example: ${py.missing} (.ci/run installs python3-flask and python3-jwt)`);
    requireBuilt();
    const [port, appPort] = [await freePort(), await freePort()];
    const url = `http://127.0.0.1:${port}`;
    const appOrigin = `http://127.0.0.1:${appPort}`;
    const serverKey = `kyc_sk_test_${randomBytes(32).toString('base64url')}`;
    const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const state = mkdtempSync(join(tmpdir(), 'kyc-python-example-'));
    // As docs/quickstart.md's "Your own app on its own origin" sets it up.
    const stack = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--no-build'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        STATE_DIR: state,
        ALLOWED_ORIGINS: appOrigin,
        PARTNER_SERVER_KEYS: serverKey,
        WEBHOOK_URL: `${appOrigin}/kyc/webhooks`,
        WEBHOOK_SECRET: webhookSecret,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    stack.stdout.on('data', (d) => (out += d));
    stack.stderr.on('data', (d) => (out += d));
    let suite: ReturnType<typeof spawn> | undefined;
    try {
      // A loaded machine: wrangler dev can take a while to start.
      await until(() => out.includes('Press Ctrl-C to stop') || stack.exitCode !== null, {
        what: 'npm start to come up',
        timeoutMs: 150_000,
        detail: () => out.slice(-2000),
      });
      assert.ok(stack.exitCode === null, `npm start did not come up:\n${out.slice(-2000)}`);
      suite = spawn(py.bin, ['-m', 'unittest', 'discover', '-v', '-s', 'tests'], {
        cwd: EXAMPLE,
        env: {
          ...process.env,
          KYC_URL: url,
          KYC_SERVER_KEY: serverKey,
          KYC_WEBHOOK_SECRET: webhookSecret,
          APP_ORIGIN: appOrigin,
          KYC_TEST_MODE: '1',
          PYTHONDONTWRITEBYTECODE: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let result = '';
      suite.stdout!.on('data', (d) => (result += d));
      suite.stderr!.on('data', (d) => (result += d));
      const code = await new Promise<number | null>((r) => suite!.once('exit', r));
      assert.equal(code, 0, `the Python suite failed:\n${result}\n--- worker ---\n${out.slice(-3000)}`);
      // Every test ran (none skipped), and the count is the suite's.
      assert.match(result, /Ran 5 tests/);
      console.log(`the Python suite: ${/Ran 5 tests in [\d.]+s/.exec(result)?.[0] ?? '?'}`);
      assert.match(result, /\nOK\s*$/);
      assert.ok(!out.includes(serverKey) && !out.includes(webhookSecret), "the worker's log holds neither secret");
    } finally {
      for (const p of [suite, stack]) {
        try {
          if (p?.pid && p.exitCode === null) process.kill(-p.pid, 'SIGINT');
        } catch {
          /* gone */
        }
      }
      await new Promise((r) => (stack.exitCode === null ? stack.once('exit', r) : r(undefined)));
      await assertStopped(url);
      rmSync(state, { recursive: true, force: true });
    }
  });
});
