/**
 * The real worker in workerd through Miniflare: the one way tests start it
 * when they need no `wrangler dev` tooling (hardening, workerd, webhooks,
 * partners). An esbuild bundle of worker/entry/local.ts (as wrangler bundles it,
 * made once per test process, so later edits of the working tree cannot
 * reload it mid-run), with the bindings wrangler derives from wrangler.toml
 * (`unstable_getMiniflareWorkerOptions`: the KV namespace, Durable Objects,
 * queues and rate limits, named once there), given vars on top. State is in
 * memory; each start begins empty. No wrangler proxy, no file watcher, no
 * "Ready on" to wait for: a start takes about a second instead of five.
 */
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { applyMigrations } from '../../scripts/lib/d1-migrations.mjs';
import { processes } from './processes';
import { testSigningKeys } from './signing-keys';
import { freePort, WRANGLER_ENV, type RunningWorker } from './wrangler';
import type { Command, ResultOf } from '../../worker/verifications/commands';
import { offWire, type Wire } from '../../worker/verifications/verification-store';

const ROOT = resolve(import.meta.dirname, '../..');

let bundled: Promise<string> | undefined;

/** One bundle per test process. */
function bundle(): Promise<string> {
  bundled ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-mf-'));
    const outfile = join(dir, 'worker.mjs');
    await build({
      entryPoints: [join(ROOT, 'worker/entry/local.ts')],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['browser', 'module', 'main'],
      external: ['cloudflare:*'],
      tsconfig: join(ROOT, 'worker/tsconfig.json'),
      logLevel: 'error',
    });
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return outfile;
  })();
  return bundled;
}

/** Bindings and compatibility settings as wrangler reads them from wrangler.toml (read once). */
let fromToml: Promise<Record<string, unknown>> | undefined;
function tomlOptions(): Promise<Record<string, unknown>> {
  fromToml ??= (async () => {
    Object.assign(process.env, WRANGLER_ENV);
    const { unstable_getMiniflareWorkerOptions } = await import('wrangler');
    const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, 'wrangler.toml'));
    // Static assets are the demo's, not under test here (unless a test names a directory: `assets`); the script is ours.
    const { assets, ...rest } = workerOptions as typeof workerOptions & { assets?: unknown };
    return { ...rest, tomlAssets: assets };
  })();
  return fromToml;
}

/** The workerd process Miniflare started for us: our child that we had not seen before. */
const seen = new Set<number>();
function newWorkerdChild(): number {
  const child = processes().find((p) => p.ppid === process.pid && p.comm.startsWith('workerd') && !seen.has(p.pid));
  if (child) seen.add(child.pid);
  return child?.pid ?? 0;
}

export interface MiniflareWorker extends RunningWorker {
  mf: Miniflare;
  kv: Awaited<ReturnType<Miniflare['getKVNamespace']>>;
  /** Lines the worker logged (console.log / console.error). */
  logs: string[];
  dispose: () => Promise<void>;
}

export interface MiniflareOptions {
  vars?: Record<string, string>;
  /** Answers the worker's outbound fetches (Miniflare's `outboundService`), e.g. a Cloudflare Access team's keys. */
  outbound?: (request: Request) => Response | Promise<Response>;
  /** Bindings of wrangler.toml to leave out (e.g. EVENTS_QUEUE, to measure the worker without events). */
  without?: string[];
  /**
   * Queues whose consumer wrangler.toml names but this worker leaves out: what is sent stays in the queue (the bench
   * measures the producing route apart from the consumer, which it drives itself with `mf.getWorker().queue()`).
   */
  withoutConsumers?: string[];
  /** Requests per 60 s per key of RL_IP (default: wrangler.toml's). */
  ipLimit?: number;
  smsLimit?: number;
  /** Apply migrations/ to D1 at start (default); `false`: a deployment whose D1 was never migrated. */
  migrate?: boolean;
  /**
   * Keep the state (Durable Objects and their alarms, KV, D1) in this directory, so a worker started again on it
   * finds what the one before left (a restart); default: in memory, each start empty. Queues are never kept.
   */
  persist?: string;
  /** Listen on this port (a restart on the same origin); default: a free one. */
  port?: number;
  /** Serve this directory as the static assets (the `ASSETS` binding), with wrangler.toml's routing. Default: none. */
  assets?: string;
}

export async function startMiniflareWorker(options: MiniflareOptions = {}): Promise<MiniflareWorker> {
  // As test/support/wrangler.ts: a free port may be taken before workerd binds it; such a start is retried.
  // A restart on the same port (`port`) waits for the workerd before it to let the port go: on a busy machine
  // that takes a while after `dispose()` returns.
  const tries = options.port === undefined ? 3 : 20;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      if (!/address already in use|EADDRINUSE/i.test(err instanceof Error ? err.message : String(err)) || attempt === tries) throw err;
      if (options.port !== undefined) await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function startOnce(options: MiniflareOptions): Promise<MiniflareWorker> {
  const [scriptPath, toml] = await Promise.all([bundle(), tomlOptions()]);
  const logs: string[] = [];
  const port = options.port ?? (await freePort());
  const vars = { ...options.vars };
  // A real (fake) vendor needs result-signing keys and PUBLIC_ORIGIN, as in production.
  if (vars.KYC_BASE_URL && vars.KYC_BASE_URL !== 'sandbox') {
    vars.RESULT_SIGNING_KEYS ??= await testSigningKeys();
    vars.PUBLIC_ORIGIN ??= `http://127.0.0.1:${port}`;
    // With DEMO off the own origin is no partner: tests that post from it name it,
    // as an operator would (as test/support/wrangler.ts does).
    vars.ALLOWED_ORIGINS ??= `http://127.0.0.1:${port}`;
    // A texted link needs Turnstile with a real vendor (tested in test/worker/api.test.ts); these
    // stacks test everything else about texts, as an operator who took that risk would run.
    vars.SMS_REQUIRES_TURNSTILE ??= 'off';
  }
  const ratelimits = { ...(toml.ratelimits as Record<string, { simple: { limit: number; period: number } }>) };
  if (options.ipLimit !== undefined) ratelimits.RL_IP = { simple: { limit: options.ipLimit, period: 60 } };
  if (options.smsLimit !== undefined) ratelimits.RL_SMS = { simple: { limit: options.smsLimit, period: 60 } };
  const without = new Set(options.without ?? []);
  const producers = Object.fromEntries(
    Object.entries((toml.queueProducers as Record<string, unknown>) ?? {}).filter(([name]) => !without.has(name)),
  );
  const unconsumed = new Set(options.withoutConsumers ?? []);
  const consumers = Object.fromEntries(
    Object.entries((toml.queueConsumers as Record<string, unknown>) ?? {}).filter(([queue]) => !unconsumed.has(queue)),
  );
  const { tomlAssets, ...bindingsFromToml } = toml;
  const mf = new Miniflare({
    ...bindingsFromToml,
    queueProducers: producers,
    queueConsumers: consumers,
    ...(options.assets ? { assets: { ...(tomlAssets as Record<string, unknown>), directory: options.assets } } : {}),
    ratelimits,
    ...(options.persist ? { defaultPersistRoot: options.persist } : {}),
    ...(options.outbound ? { outboundService: options.outbound } : {}),
    bindings: { ...((toml.bindings as Record<string, unknown>) ?? {}), ...vars },
    modules: [{ type: 'ESModule', path: scriptPath }],
    modulesRoot: resolve(scriptPath, '..'),
    host: '127.0.0.1',
    port,
    handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
      for (const s of [stdout, stderr]) s.on('data', (d: Buffer) => logs.push(...String(d).split('\n').filter(Boolean)));
    },
  } as ConstructorParameters<typeof Miniflare>[0]);
  let url: string;
  try {
    url = (await mf.ready).origin;
  } catch (err) {
    // workerd says why on its stderr (e.g. the port was taken): carry that in the error.
    await mf.dispose().catch(() => undefined);
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${logs.join('\n')}`, { cause: err });
  }
  const pid = newWorkerdChild();
  // D1 starts empty in memory: the schema, as `npm start` applies it (migrations/); a kept one has it already.
  if (options.migrate !== false) await applyMigrations(await mf.getD1Database('DB'), ROOT);
  const kv = await mf.getKVNamespace('PARTNERS');
  const dispose = () => mf.dispose();
  return { url, port: Number(new URL(url).port), pid, output: () => logs.join('\n'), stop: dispose, mf, kv, logs, dispose };
}

/** Verification `id`'s own Durable Object, as the worker reaches it: its one RPC method, answers off the wire. */
export async function verificationObject(worker: MiniflareWorker, id: string) {
  const ns = await worker.mf.getDurableObjectNamespace('VERIFICATIONS');
  const stub = ns.get(ns.idFromName(id)) as unknown as { execute(c: Command): Promise<Wire<unknown>> };
  return {
    execute: async <C extends Command>(c: C) => offWire(await stub.execute(c)) as ResultOf<C>,
  };
}
