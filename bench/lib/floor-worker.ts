/**
 * Runs bench/fixtures/floor-worker.ts under `wrangler dev` the way
 * test/support/wrangler.ts runs the real worker (same flags, own process
 * group, stopped on exit), so that the two differ only in the worker's code.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, WRANGLER_ENV, freePort } from '../../test/support/wrangler';
import { onCleanup } from './cleanup';
import { sleep } from './stats';

export async function startFloorWorker(vendorUrl: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const state = mkdtempSync(join(tmpdir(), 'kyc-bench-floor-'));
  const args = ['dev', '--config', join(ROOT, 'bench/fixtures/wrangler-floor.toml'), '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', '0', '--persist-to', state, '--log-level', 'log', '--var', `VENDOR_URL:${vendorUrl}`];
  const child = spawn(join(ROOT, 'node_modules/.bin/wrangler'), args, { cwd: ROOT, env: { ...process.env, ...WRANGLER_ENV }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let exited = false;
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  child.once('exit', () => (exited = true));
  const stop = async () => {
    forget();
    if (!exited && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      for (let i = 0; i < 100 && !exited; i++) await sleep(50);
      if (!exited) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    }
    rmSync(state, { recursive: true, force: true });
  };
  const forget = onCleanup(stop);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !exited) {
    if (/Ready on/.test(out)) {
      try {
        await fetch(`${url}/ok`);
        return { url, stop };
      } catch {
        /* not listening yet */
      }
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`wrangler dev (floor worker) did not become ready:\n${out.slice(-3000)}`);
}
