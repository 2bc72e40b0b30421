/**
 * Runs a worker in workerd through Miniflare directly: the bundle
 * `wrangler deploy --dry-run` produces (what would be uploaded) with the
 * bindings wrangler derives from the same wrangler.toml
 * (`unstable_getMiniflareWorkerOptions`), and no dev tooling in front: no
 * wrangler proxy worker, no inspector. That is the closest this machine gets
 * to the worker's own cost in production. State is in memory.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Miniflare } from 'miniflare';
import { ROOT, WRANGLER_ENV, freePort } from '../../test/support/wrangler';
import { testSigningKeys } from '../../test/support/signing-keys';
import { applyMigrations } from '../../scripts/lib/d1-migrations.mjs';
import { onCleanup } from './cleanup';
import { withTimeout } from './stats';

export interface MiniflareWorker {
  url: string;
  stop: () => Promise<void>;
}

/** The deployable bundle of `config`, in a fresh temporary directory. */
function dryRunBundle(config: string): { dir: string; main: string } {
  mkdirSync(join(ROOT, 'dist/public'), { recursive: true }); // wrangler refuses to start without the assets dir
  const dir = mkdtempSync(join(tmpdir(), 'kyc-bench-bundle-'));
  const r = spawnSync(join(ROOT, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--config', config, '--outdir', dir], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...WRANGLER_ENV },
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`wrangler deploy --dry-run --config ${config} failed:\n${r.stdout}\n${r.stderr}`);
  const main = readdirSync(dir).find((f) => f.endsWith('.js'));
  if (!main || !existsSync(join(dir, main))) throw new Error(`no bundle in ${dir}`);
  return { dir, main: join(dir, main) };
}

/**
 * One bundle per config for the whole run: the items start several workers of
 * the same wrangler.toml with different settings (the vendors, failover), and
 * each dry run takes seconds. Removed at the end of the run.
 */
const bundles = new Map<string, { dir: string; main: string }>();
function bundleOf(config: string): { dir: string; main: string } {
  let b = bundles.get(config);
  if (!b) {
    const made = dryRunBundle(config);
    bundles.set(config, made);
    onCleanup(async () => rmSync(made.dir, { recursive: true, force: true }));
    b = made;
  }
  return b;
}

export async function startMiniflareWorker(config: string, vars: Record<string, string>): Promise<MiniflareWorker> {
  Object.assign(process.env, WRANGLER_ENV);
  // wrangler refuses to read the config without the assets dir (a fresh clone running `--only=overhead`).
  mkdirSync(join(ROOT, 'dist/public'), { recursive: true });
  const { unstable_getMiniflareWorkerOptions } = await import('wrangler');
  const { workerOptions } = unstable_getMiniflareWorkerOptions(config);
  const bundle = bundleOf(config);
  const port = await freePort();
  // A real (fake) vendor needs result-signing keys and PUBLIC_ORIGIN, as in production.
  if (vars.KYC_BASE_URL && vars.KYC_BASE_URL !== 'sandbox') {
    vars = { RESULT_SIGNING_KEYS: await testSigningKeys(), PUBLIC_ORIGIN: `http://127.0.0.1:${port}`, ...vars };
  }
  let errTail = '';
  // Static assets are not part of what is measured (/api runs the worker first).
  const { assets: _assets, ...options } = workerOptions as typeof workerOptions & { assets?: unknown };
  const mf = new Miniflare({
    ...(options as object),
    bindings: { ...(workerOptions.bindings ?? {}), ...vars },
    modules: true,
    scriptPath: bundle.main,
    modulesRoot: bundle.dir,
    host: '127.0.0.1',
    port,
    // The worker logs one line per request: drain it (the cost of console.log stays in);
    // keep the tail of stderr for the error message should workerd fail to start.
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.resume();
      stderr.on('data', (d: Buffer) => (errTail = (errTail + d.toString()).slice(-4000)));
    },
  } as ConstructorParameters<typeof Miniflare>[0]);
  const stop = async () => {
    forget();
    await mf.dispose().catch(() => {});
  };
  const forget = onCleanup(stop);
  try {
    const url = (await withTimeout(mf.ready, 60_000, `Miniflare (${config})`)).origin;
    // As a deploy does first: the worker refuses every route on an unmigrated D1 (the floors bind none).
    const db = await mf.getD1Database('DB').catch(() => undefined);
    if (db) await applyMigrations(db, ROOT);
    return { url, stop };
  } catch (e) {
    await stop();
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${errTail}`, { cause: e });
  }
}
