/** Starts lib/vendor-server.ts (the fake vendors) as a child process group on 127.0.0.1 and stops it again. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../test/support/wrangler';
import { onCleanup } from './cleanup';
import { sleep } from './stats';

export interface VendorProcess {
  /** The fake spec vendor at its paths, the Stripe double under `/sandbox/stripe`. */
  url: string;
  /** A server that never answers (a vendor down the slow way). */
  silent: string;
  pid: number;
  stop: () => Promise<void>;
}

export async function startVendorProcess(): Promise<VendorProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/lib/vendor-server.ts')], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let exited = false;
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  child.once('exit', () => (exited = true));
  const stop = async () => {
    forget();
    if (exited || !child.pid) return;
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
  };
  const forget = onCleanup(() => stop());
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && !exited) {
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line) {
      const { url, silent } = JSON.parse(line) as { url: string; silent: string };
      return { url, silent, pid: child.pid!, stop };
    }
    await sleep(50);
  }
  await stop();
  throw new Error(`fake vendor did not start:\n${err.slice(-2000)}`);
}
