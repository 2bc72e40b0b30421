/**
 * Shared pieces of the hardening suite: a seeded PRNG, simulated client
 * addresses, the ErrorObject check, the leak check, process-group memory, and
 * the results file the README quotes.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { Agent, setGlobalDispatcher, type Dispatcher } from 'undici';
import { startMiniflareWorker } from '../support/miniflare-worker';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { processes, rssBytes } from '../support/processes';

/**
 * One connection per request in this suite. workerd closes a connection when
 * it answers before reading the body (a 403, 413 or 415 is decided from the
 * headers), and a client that reuses a kept-alive socket races that close
 * (ECONNRESET on an innocent next request). Production has Cloudflare's edge
 * in front, and `wrangler dev` a proxy; here the fuzzer talks to workerd
 * directly, so it asks for a fresh connection each time.
 */
class OneRequestPerConnection extends Agent {
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return super.dispatch({ ...options, reset: true }, handler);
  }
}
setGlobalDispatcher(new OneRequestPerConnection());
import type { RunningWorker } from '../support/wrangler';

/**
 * Starts the real worker in workerd (Miniflare, `test/support/miniflare-worker.ts`)
 * with the given vars: bundled once per test process, so edits in the
 * working tree during a run cannot reload it, and with no `wrangler dev`
 * proxy or watcher in front. `pid` is workerd's own process.
 */
export async function startSnapshotWorker(options: { vars?: Record<string, string> } = {}): Promise<RunningWorker> {
  return startMiniflareWorker({ vars: options.vars });
}

/** A fake vendor, and the worker in workerd calling it (`KYC_BASE_URL`) with the file's other settings. */
export async function startVendorAndWorker(vars: Record<string, string>): Promise<{ vendor: FakeVendor; worker: RunningWorker }> {
  const vendor = await startFakeVendor();
  const worker = await startSnapshotWorker({ vars: { KYC_BASE_URL: vendor.url, ...vars } });
  return { vendor, worker };
}

/** Stops what `startVendorAndWorker` started (either may be missing after a failed start). */
export async function stopVendorAndWorker(s: { vendor?: FakeVendor; worker?: RunningWorker }): Promise<void> {
  await s.worker?.stop();
  await s.vendor?.close();
}

/** mulberry32: tiny, fast, good enough to make fuzz runs reproducible. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const chance = (p: number) => next() < p;
  const alnum = (n: number) => {
    const abc = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    let s = '';
    for (let i = 0; i < n; i++) s += abc[Math.floor(next() * abc.length)];
    return s;
  };
  return { next, int, pick, chance, alnum };
}
export type Prng = ReturnType<typeof prng>;

/** The seed of this run: HARDENING_SEED, or a fixed default so CI is reproducible. */
export function seedFromEnv(fallback: number): number {
  const s = Number(process.env.HARDENING_SEED);
  return Number.isInteger(s) ? s : fallback;
}

let ipCounter = 0;
/**
 * A client address nobody else in this process has used: rate limits key on
 * CF-Connecting-IP, so a fresh one per request keeps the limiter from hiding
 * the worker's own answers. `block` separates the test files' ranges.
 */
export function freshIp(block = 10): string {
  ipCounter++;
  return `${block}.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

export const ERROR_KEYS = ['errorCode', 'errorMsg', 'issues', 'requestId'];

/** Asserts a well-formed ErrorObject (docs/api.md): exactly its four fields, typed, with the answer's request id. */
export function assertErrorObject(
  text: string,
  headers: Headers,
  context: string,
): { errorCode: string; issues: { issue: string; issueLocation: string }[] } {
  assert.match(headers.get('content-type') ?? '', /^application\/json/, `${context}: content type`);
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`${context}: answer is not JSON: ${text.slice(0, 200)}`);
  }
  assert.ok(body && typeof body === 'object' && !Array.isArray(body), `${context}: not an object`);
  assert.deepEqual(Object.keys(body).sort(), ERROR_KEYS, `${context}: keys ${Object.keys(body)}`);
  assert.match(body.errorCode, /^[A-Z][A-Z_]+$/, `${context}: errorCode`);
  assert.ok(typeof body.errorMsg === 'string' && body.errorMsg.length > 0 && body.errorMsg.length < 300, `${context}: errorMsg`);
  assert.ok(Array.isArray(body.issues), `${context}: issues`);
  for (const i of body.issues) {
    assert.deepEqual(Object.keys(i).sort(), ['issue', 'issueLocation'], `${context}: issue keys`);
    assert.ok(typeof i.issue === 'string' && i.issue.length > 0 && i.issue.length < 200, `${context}: issue text`);
    assert.ok(
      typeof i.issueLocation === 'string' && i.issueLocation.length > 0 && i.issueLocation.length < 200,
      `${context}: issueLocation`,
    );
  }
  assert.ok(typeof body.requestId === 'string' && body.requestId.length > 0, `${context}: requestId`);
  // A replayed answer (Idempotency-Key) is the first answer, with the first request's id.
  if (headers.get('idempotent-replayed') !== 'true') {
    assert.equal(headers.get('x-request-id'), body.requestId, `${context}: X-Request-Id matches requestId`);
  }
  return body;
}

export { assertNoLeak, stringLeaves } from '../support/echo';

export function headerText(headers: Headers): string {
  return [...headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
}

/** Resident memory (bytes) of process group `pgid`, or of the process `pgid` alone when it leads no group (workerd under Miniflare). */
export function groupRss(pgid: number): { total: number; byName: Record<string, number> } {
  const byName: Record<string, number> = {};
  let total = 0;
  for (const p of processes()) {
    if (p.pgrp !== pgid && p.pid !== pgid) continue;
    const bytes = rssBytes(p.pid);
    byName[p.comm] = (byName[p.comm] ?? 0) + bytes;
    total += bytes;
  }
  return { total, byName };
}

/**
 * Every run writes its figures to results/last-run.json (ignored by git), so
 * `npm test` leaves the tree clean; `HARDENING_SAVE=1 npm run test:hardening`
 * also refreshes the committed results/latest.json that the README quotes.
 */
const RESULT_FILES = [
  join(import.meta.dirname, 'results/last-run.json'),
  ...(process.env.HARDENING_SAVE === '1' ? [join(import.meta.dirname, 'results/latest.json')] : []),
];

/** Merges one section into the results file(s). */
export function saveResults(section: string, data: unknown): void {
  for (const file of RESULT_FILES) {
    let all: Record<string, unknown>;
    try {
      all = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      all = {};
    }
    all[section] = data;
    all.machine = { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version, platform: process.platform };
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(all, null, 2) + '\n');
  }
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `fn` over `items` with at most `width` in flight. */
export async function pool<T>(items: readonly T[], width: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  });
  await Promise.all(lanes);
}
