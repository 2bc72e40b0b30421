/**
 * Runs the real worker in workerd with `wrangler dev` on 127.0.0.1, in its own
 * process group so that stop() takes workerd down with it. State goes to a
 * fresh temporary directory, so every start begins empty.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { applyWithWranglerAsync, migrations } from '../../scripts/lib/d1-migrations.mjs';
import { testSigningKeys } from './signing-keys';
import { until, within } from './wait';

export const ROOT = resolve(import.meta.dirname, '../..');

/** Keeps wrangler off the internet. */
export const WRANGLER_ENV = {
  CI: 'true',
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  NO_COLOR: '1',
};

export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/** Whether nothing listens on 127.0.0.1:`port` (it could be bound now). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const s = createServer();
    s.once('error', () => ok(false));
    s.listen(port, '127.0.0.1', () => s.close(() => ok(true)));
  });
}

export interface RunningWorker {
  url: string;
  port: number;
  /** Process id of wrangler, which is also the id of its process group (workerd included). */
  pid: number;
  /** Everything wrangler and the worker printed. */
  output: () => string;
  stop: () => Promise<void>;
}

export interface StartOptions {
  vars?: Record<string, string>;
  port?: number;
  /**
   * Directory holding the wrangler.toml to run (default: the repository). A
   * copy of the worker there is not reloaded by edits in the working tree.
   */
  root?: string;
  /** Milliseconds to wait for "Ready". */
  timeoutMs?: number;
  /** Local state directory to use and keep (default: a fresh one, removed on stop). */
  persistTo?: string;
  /** An .env file of settings (`wrangler dev --env-file`), for values --var cannot carry. */
  envFile?: string;
}

export async function startWorker(options: StartOptions = {}): Promise<RunningWorker> {
  // A free port is free when asked, not when wrangler binds it: another
  // process (a workerd of a parallel test file) may take it meanwhile. Such a
  // start is retried on a new port; any other failure is not.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      const taken = /Address already in use/.test((err as Error).message);
      if (!taken || options.port !== undefined || attempt === 3) throw err;
    }
  }
}

async function startOnce(options: StartOptions): Promise<RunningWorker> {
  const root = options.root ?? ROOT;
  mkdirSync(join(root, 'dist/public'), { recursive: true }); // wrangler needs the assets dir to exist
  // The static assets the worker reads through ASSETS that `npm run build` copies (scripts/build-widget.mjs).
  for (const [from, to] of [['worker/ops/ops.css', 'dist/public/ops/ops.css']] as const) {
    mkdirSync(dirname(join(root, to)), { recursive: true });
    if (existsSync(join(ROOT, from))) copyFileSync(join(ROOT, from), join(root, to));
  }
  const port = options.port ?? (await freePort());
  const state = options.persistTo ?? mkdtempSync(join(tmpdir(), 'kyc-wrangler-'));
  const args = ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', '0', '--persist-to', state, '--log-level', 'log'];
  if (options.envFile) args.push('--env-file', options.envFile);
  const vars = { ...options.vars };
  // A real (fake) vendor needs result-signing keys and PUBLIC_ORIGIN, as in production.
  const fromFile = options.envFile ? /^KYC_BASE_URL=['"]?([^'"\n]*)/m.exec(readFileSync(options.envFile, 'utf8'))?.[1] : undefined;
  const base = vars.KYC_BASE_URL ?? fromFile;
  if (base && base !== 'sandbox') {
    if (!('RESULT_SIGNING_KEYS' in vars)) vars.RESULT_SIGNING_KEYS = await testSigningKeys();
    if (!('PUBLIC_ORIGIN' in vars)) vars.PUBLIC_ORIGIN = `http://127.0.0.1:${port}`;
    // With DEMO off the own origin is no partner: tests that post from it name it,
    // as an operator would (pass ALLOWED_ORIGINS: '' to leave it unset).
    if (!('ALLOWED_ORIGINS' in vars)) vars.ALLOWED_ORIGINS = `http://127.0.0.1:${port}`;
    // As test/support/miniflare-worker.ts: texts without Turnstile, a risk these stacks take on purpose.
    if (!('SMS_REQUIRES_TURNSTILE' in vars)) vars.SMS_REQUIRES_TURNSTILE = 'off';
  }
  // Through a file, not --var: values stay out of the process list, and JSON keeps its colons.
  const lines: string[] = [];
  for (const [k, v] of Object.entries(vars)) {
    if (/['\n]/.test(v))
      args.push('--var', `${k}:${v}`); // the file format cannot hold these as they are
    else lines.push(`${k}='${v}'`);
  }
  writeFileSync(join(state, 'vars.env'), lines.join('\n') + '\n');
  // The D1 schema (migrations/), into this stack's own state, as `npm start` does.
  await migrate(root, state);
  args.push('--env-file', join(state, 'vars.env'));
  const child: ChildProcess = spawn(join(ROOT, 'node_modules/.bin/wrangler'), args, {
    cwd: root,
    env: { ...process.env, ...WRANGLER_ENV },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let exited = false;
  const gone = new Promise<void>((ok) => child.once('exit', () => ok()));
  void gone.then(() => (exited = true));

  const stop = async () => {
    if (!exited && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      const ended = await within(gone, { what: 'wrangler to exit', timeoutMs: 5000 }).then(
        () => true,
        () => false,
      );
      if (!ended) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    }
    if (!options.persistTo) rmSync(state, { recursive: true, force: true });
  };

  const url = `http://127.0.0.1:${port}`;
  // "Ready on" in its output, then the port answers (or wrangler exited: no use waiting on).
  const ready = await until(
    async () => {
      if (exited) return 'exited';
      if (!/Ready on/.test(out)) return false;
      try {
        await fetch(`${url}/api/__ready__`);
        return 'ready';
      } catch {
        return false; // not listening yet
      }
    },
    // A bound, not a wait: a busy 2-core machine starting several stacks at once needs more than 30 s.
    { what: 'wrangler dev to be ready', timeoutMs: options.timeoutMs ?? 60_000 },
  ).catch(() => 'timed out');
  if (ready === 'ready') return { url, port, pid: child.pid!, output: () => out, stop };
  await stop();
  throw new Error(`wrangler dev did not become ready:\n${out.slice(-3000)}`);
}

/**
 * Applies the D1 migrations to a stack's state. `wrangler d1 migrations
 * apply` takes 5–8 s (it starts its own workerd), and every stack of a run
 * starts from the same schema: it runs once per set of migrations, into a
 * template directory shared by the run's test processes, and each fresh state
 * gets a copy of wrangler's files. A state that already holds a database (kept
 * across a restart) is left to wrangler, which applies only what is new.
 */
async function migrate(root: string, state: string): Promise<void> {
  if (existsSync(join(state, 'v3/d1'))) return applyOrThrow(root, state);
  const wrangler = readFileSync(join(ROOT, 'node_modules/wrangler/package.json'), 'utf8'); // its version writes the files
  const key = createHash('sha256')
    .update(JSON.stringify(migrations(root)) + wrangler)
    .digest('hex')
    .slice(0, 16);
  const template = join(tmpdir(), `kyc-d1-template-${key}`);
  if (!existsSync(template)) {
    const building = mkdtempSync(join(tmpdir(), 'kyc-d1-building-'));
    await applyOrThrow(root, building);
    try {
      renameSync(building, template); // atomic: a parallel test process that got there first wins
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
  }
  cpSync(join(template, 'v3'), join(state, 'v3'), { recursive: true });
}

async function applyOrThrow(root: string, state: string): Promise<void> {
  const migrated = await applyWithWranglerAsync(root, WRANGLER_ENV, state);
  if (migrated.status !== 0) throw new Error(`wrangler d1 migrations apply failed:\n${migrated.output}`);
}
