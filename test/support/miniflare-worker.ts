/**
 * The real worker in workerd through Miniflare, on an esbuild bundle of
 * worker/index.ts (as wrangler bundles it), with the bindings of
 * wrangler.toml: a real KV namespace PARTNERS (which the test can read and
 * write through `kv`), the Durable Objects (SQLite), the webhook queues and the rate limits
 * (limits overridable). State is in memory; each start begins empty.
 */
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { testSigningKeys } from './signing-keys';
import { freePort } from './wrangler';

const ROOT = resolve(import.meta.dirname, '../..');

let bundled: Promise<string> | undefined;

/** One bundle per test process. */
function bundle(): Promise<string> {
  bundled ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-mf-'));
    const outfile = join(dir, 'worker.mjs');
    await build({
      entryPoints: [join(ROOT, 'worker/index.ts')],
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

export interface MiniflareWorker {
  url: string;
  mf: Miniflare;
  kv: Awaited<ReturnType<Miniflare['getKVNamespace']>>;
  /** Lines the worker logged (console.log / console.error). */
  logs: string[];
  dispose: () => Promise<void>;
}

export interface MiniflareOptions {
  vars?: Record<string, string>;
  /** Requests per 60 s per key of RL_IP (default 60, as in wrangler.toml). */
  ipLimit?: number;
  smsLimit?: number;
}

export async function startMiniflareWorker(options: MiniflareOptions = {}): Promise<MiniflareWorker> {
  const scriptPath = await bundle();
  const logs: string[] = [];
  const port = await freePort();
  const vars = { ...options.vars };
  // A real (fake) vendor needs result-signing keys and PUBLIC_ORIGIN, as in production.
  if (vars.KYC_BASE_URL && vars.KYC_BASE_URL !== 'sandbox') {
    vars.RESULT_SIGNING_KEYS ??= await testSigningKeys();
    vars.PUBLIC_ORIGIN ??= `http://127.0.0.1:${port}`;
  }
  const mf = new Miniflare({
    modules: [{ type: 'ESModule', path: scriptPath }],
    modulesRoot: resolve(scriptPath, '..'),
    compatibilityDate: '2026-04-20',
    host: '127.0.0.1',
    port,
    kvNamespaces: ['PARTNERS'],
    durableObjects: {
      SANDBOX_STORE: { className: 'SandboxStore', useSQLite: true },
      IDEMPOTENCY: { className: 'IdempotencyStore', useSQLite: true },
      VERIFICATIONS: { className: 'VerificationStore', useSQLite: true },
      DEV_SECRETS: { className: 'DevSecrets', useSQLite: true },
    },
    queueProducers: { WEBHOOK_QUEUE: { queueName: 'kyc-webhooks' }, WEBHOOK_DLQ: { queueName: 'kyc-webhooks-dlq' } },
    queueConsumers: {
      'kyc-webhooks': { maxBatchSize: 10, maxBatchTimeout: 1, maxRetries: 10, deadLetterQueue: 'kyc-webhooks-dlq' },
      'kyc-webhooks-dlq': { maxBatchSize: 10, maxBatchTimeout: 1 },
    },
    ratelimits: {
      RL_IP: { simple: { limit: options.ipLimit ?? 60, period: 60 } },
      RL_SMS: { simple: { limit: options.smsLimit ?? 3, period: 60 } },
    },
    bindings: vars,
    handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
      for (const s of [stdout, stderr]) s.on('data', (d: Buffer) => logs.push(...String(d).split('\n').filter(Boolean)));
    },
  });
  const url = (await mf.ready).origin;
  const kv = await mf.getKVNamespace('PARTNERS');
  return { url, mf, kv, logs, dispose: () => mf.dispose() };
}
