/**
 * `npm start` itself (scripts/start.mjs, without the build, which `npm test`
 * has just done): it prints the URL, serves the demo, the widget and the API on
 * the port it is given, and Ctrl-C (SIGINT) stops it with no workerd left behind.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/wrangler';
import { until } from '../support/wait';
import { startFakeVendor } from '../support/fake-vendor';
import { testSigningKeys } from '../support/signing-keys';
import { adultDateOfBirth } from '../support/dates';
import { assertStopped, freePort, requireBuilt } from './helpers';

/** Processes whose command line mentions `needle` (Linux /proc). */
function processesWith(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(needle)) found.push(`${pid} ${cmd}`);
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

describe('npm start', () => {
  it('npm start: prints the URL, serves /, /widget.js and /api, and Ctrl-C leaves nothing running', { timeout: 60_000 }, async () => {
    requireBuilt();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const state = mkdtempSync(join(tmpdir(), 'kyc-start-')); // not the developer's .wrangler/state
    const child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--no-build'], {
      cwd: ROOT,
      // Two settings `npm start` used to drop: the table's settings all reach wrangler (scripts/lib/settings.mjs).
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        STATE_DIR: state,
        RESULT_POLL_MAX_SECONDS: '600',
        LIMIT_OPEN_PER_IP: '20',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
    try {
      await until(() => out.includes('Press Ctrl-C to stop') || child.exitCode !== null, {
        what: 'npm start to come up',
        detail: () => out.slice(-2000),
      });
      assert.ok(child.exitCode === null, `npm start did not come up:\n${out.slice(-2000)}`);
      assert.match(out, new RegExp(`Demo\\s+${url}/`));
      assert.match(out, /built-in sandbox/);
      assert.match(out, /\[start\] settings from the environment: .*RESULT_POLL_MAX_SECONDS, LIMIT_OPEN_PER_IP/);
      assert.match(
        out,
        new RegExp(`Pinned\\s+${url}/widget@[\\w.-]+\\.js\\s+integrity="sha384-`),
        'it names the pinned script and its SRI hash',
      );

      const page = await fetch(`${url}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<kyc-onboard/);
      const js = await fetch(`${url}/widget.js`);
      assert.equal(js.status, 200);
      assert.equal(js.headers.get('access-control-allow-origin'), '*');
      const ruok = await fetch(`${url}/api/ruok`);
      assert.deepEqual(await ruok.json(), { status: 'OK' });
      assert.ok(
        processesWith(`127.0.0.1:${port}`).some((p) => p.includes('workerd')),
        'workerd serves the port',
      );

      child.kill('SIGINT'); // what Ctrl-C sends
      const code = await exited;
      assert.equal(code, 0, `npm start exits 0 on Ctrl-C:\n${out.slice(-1500)}`);
      await assertStopped(url);
      assert.deepEqual(processesWith(`127.0.0.1:${port}`), [], 'no wrangler or workerd left behind');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(state, { recursive: true, force: true });
    }
  });

  it(
    'npm start takes the configuration table from the environment: secrets through a file, names printed, values never',
    { timeout: 60_000 },
    async () => {
      requireBuilt();
      const vendor = await startFakeVendor();
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const partner = `http://127.0.0.1:${await freePort()}`; // a partner page's origin (nothing needs to listen there)
      const apiKey = `start-env-key-${process.pid}-Qx81`;
      const sessionSecret = `start-env-session-${process.pid}-secret-value`;
      const state = mkdtempSync(join(tmpdir(), 'kyc-start-'));
      const child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--no-build'], {
        cwd: ROOT,
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          STATE_DIR: state,
          KYC_BASE_URL: vendor.url,
          KYC_API_KEY: apiKey,
          KYC_CUSTOMER_ID: 'cust-start',
          SESSION_SECRET: sessionSecret,
          RESULT_SIGNING_KEYS: await testSigningKeys(),
          PUBLIC_ORIGIN: url,
          ALLOWED_ORIGINS: partner,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
      const person = {
        name: { givenName: 'Ana', familyName: 'Lima' },
        dateOfBirth: adultDateOfBirth(),
        phone: { code: '+61', number: '0412 345 678' },
        consent: true,
      };
      const post = (origin: string) =>
        fetch(`${url}/api/onboarding-link`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Origin: origin },
          body: JSON.stringify(person),
        });
      try {
        await until(() => out.includes('Press Ctrl-C to stop') || child.exitCode !== null, {
          what: 'npm start to come up',
          detail: () => out.slice(-2000),
        });
        assert.ok(child.exitCode === null, `npm start did not come up:\n${out.slice(-2000)}`);
        // It says which settings it applied, by name, and never a secret's value.
        const applied = /settings from the environment: (.*)/.exec(out)?.[1] ?? '';
        for (const name of ['KYC_BASE_URL', 'KYC_API_KEY', 'SESSION_SECRET', 'RESULT_SIGNING_KEYS', 'PUBLIC_ORIGIN', 'ALLOWED_ORIGINS'])
          assert.ok(applied.split(', ').includes(name), `${name} is named as applied: ${applied}`);
        assert.ok(!out.includes(apiKey) && !out.includes(sessionSecret), 'no secret value in the output');
        // Through a file: no secret on any command line (the process list).
        const cmdlines = processesWith(String(port)).join('\n');
        assert.ok(cmdlines.includes('wrangler'), 'wrangler runs');
        assert.ok(!cmdlines.includes(apiKey) && !cmdlines.includes(sessionSecret), 'no secret on a command line');
        assert.match(out, /Home\s+.*DEMO is off/);

        // ALLOWED_ORIGINS reached the worker: the partner's page gets through, with CORS, to the configured vendor and key.
        vendor.requests.length = 0;
        const ok = await post(partner);
        assert.equal(ok.status, 200, await ok.clone().text());
        assert.equal(ok.headers.get('access-control-allow-origin'), partner);
        assert.equal(vendor.requests[0]?.headers['api_key'], apiKey);
        // A real vendor: the worker's own origin is no partner, and / is not the demo.
        const own = await post(url);
        assert.equal(own.status, 403);
        assert.equal(vendor.requests.length, 1);
        assert.doesNotMatch(await (await fetch(`${url}/`)).text(), /<kyc-onboard|Harbourline/);

        child.kill('SIGINT');
        assert.equal(await exited, 0, out.slice(-1500));
        await assertStopped(url);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        rmSync(state, { recursive: true, force: true });
        await vendor.close();
      }
    },
  );
});
