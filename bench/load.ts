/**
 * Items 3 and 6: the worker's cost per request. The real worker runs under
 * `wrangler dev` (workerd) with KYC_BASE_URL pointing at a fast local fake
 * vendor (a node process of its own); the same load tool (autocannon, in this
 * process), the same concurrency and the same duration drive the worker and
 * the fake vendor directly, in alternating runs. Every request carries its own
 * CF-Connecting-IP, so the worker's per-IP limiter (60/min) never answers 429:
 * what is measured is the worker, not its limiter.
 *
 * Latencies are the client's per-request times (autocannon's float
 * milliseconds, kept here rather than its integer-millisecond histogram, so
 * that "adds under 2 ms" can be told apart from rounding). Only 2xx answers
 * count; any other status is reported and marks the run as invalid.
 */
import autocannon from 'autocannon';
import { ratio, median, percentile, round, withTimeout } from './lib/stats';
import { adultDateOfBirth } from '../test/support/dates';

const DATE_OF_BIRTH = adultDateOfBirth();

/** The partner page the bench's requests come from, set up as a partner would (ALLOWED_ORIGINS). */
export const PARTNER_ORIGIN = 'https://shop.example';

/** The body the widget sends (docs/api.md "Browser-facing API"). */
export const LINK_BODY = JSON.stringify({
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  dateOfBirth: DATE_OF_BIRTH,
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
});

/** Roughly what the worker sends the vendor for that body (the direct baseline sends the same size). */
export function vendorLinkBody(origin: string): string {
  return JSON.stringify({
    applicationRef: '01JBENCH00000000000000000',
    consent: true,
    entity: { entityType: 'INDIVIDUAL', name: { givenName: 'Ada', familyName: 'Lovelace' }, dateOfBirth: { dateOfBirth: DATE_OF_BIRTH } },
    sendSMS: false,
    phoneCode: '+61',
    phoneNumber: '412345678',
    successRedirectURL: `${origin}/?kyc_return=success`,
    errorRedirectURL: `${origin}/?kyc_return=error`,
  });
}

/** Roughly what the worker sends Stripe for the same link (a VerificationSession create, form-encoded). */
export function stripeSessionBody(origin: string): string {
  return new URLSearchParams({
    type: 'document',
    client_reference_id: 'vrf_01JBENCH00000000000000000',
    return_url: `${origin}/?kyc_return=done`,
    'metadata[verification_id]': 'vrf_01JBENCH00000000000000000',
  }).toString();
}

/** The key the Stripe double takes in test mode (sandbox/stripe/app.ts's STRIPE_SANDBOX_KEY). */
export const STRIPE_TEST_KEY = 'sk_test_kyconboardsandbox';

export const VENDOR_HEADERS = { api_key: 'bench-key', 'X-Service-CustomerID': 'bench-customer', 'X-Service-Channel': 'api' };

export interface Target {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The status that counts as a good answer (default: any 2xx). */
  expect?: number;
  /** Send a fresh Idempotency-Key with every request (as the widget does). */
  idempotencyKey?: boolean;
}

export interface LoadRun {
  connections: number;
  durationS: number;
  ok: number;
  non2xx: number;
  /** Count per unexpected status. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  rps: number;
  p50: number;
  p99: number;
}

let ipCounter = 0;
const runId = Date.now().toString(36);
/** A new client address per request: 10.x.y.z, then wraps (far more than a run sends). */
function nextIp(): string {
  const n = ipCounter++ % 16_000_000;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

export async function load(target: Target, connections: number, durationS: number): Promise<LoadRun> {
  const u = new URL(target.url);
  const latencies: number[] = [];
  let ok = 0;
  let non2xx = 0;
  const statuses: Record<string, number> = {};
  const started = performance.now();
  let inst: autocannon.Instance | undefined;
  const result = await withTimeout(
    new Promise<autocannon.Result>((resolve, reject) => {
      inst = autocannon(
        {
          url: u.origin,
          connections,
          duration: durationS,
          pipelining: 1,
          // Long enough for 128 connections queueing on a busy 2-core machine: a timeout fails the item.
          timeout: 30,
          requests: [
            {
              method: target.method,
              path: u.pathname + u.search,
              headers: target.headers,
              ...(target.body ? { body: target.body } : {}),
              setupRequest: (req: autocannon.Request) => ({
                ...req,
                headers: {
                  ...req.headers,
                  'cf-connecting-ip': nextIp(),
                  ...(target.idempotencyKey ? { 'idempotency-key': `bench-${runId}-${ipCounter}` } : {}),
                },
              }),
            },
          ],
        },
        (err, res) => (err ? reject(err as Error) : resolve(res)),
      );
      inst.on('response', (_client: unknown, status: number, _bytes: number, time: number) => {
        if (target.expect ? status === target.expect : status >= 200 && status < 300) {
          ok++;
          latencies.push(time);
        } else {
          non2xx++;
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      });
    }),
    (durationS + 45) * 1000,
    `load ${target.url}`,
  ).catch((e: unknown) => {
    inst?.stop();
    throw e;
  });
  const elapsedS = (performance.now() - started) / 1000;
  return {
    connections,
    durationS,
    ok,
    non2xx,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    rps: round(ok / Math.max(elapsedS, durationS), 1),
    p50: round(median(latencies), 3),
    p99: round(percentile(latencies, 99), 3),
  };
}

export interface Compared {
  connections: number;
  worker: Summary;
  direct: Summary;
  /** worker rps / direct rps */
  throughputRatio: number;
  /** worker p50 − direct p50, ms */
  addedP50: number;
  addedP99: number;
  p50Ratio: number;
  p99Ratio: number;
  /** Any run with a non-2xx answer or a socket error. */
  clean: boolean;
}

export interface Summary {
  rps: number;
  p50: number;
  p99: number;
  runs: LoadRun[];
}

/** The median run of several (rate, p50, p99), the runs kept. */
export function med(runs: LoadRun[]): Summary {
  return {
    rps: round(median(runs.map((r) => r.rps)), 1),
    p50: round(median(runs.map((r) => r.p50)), 3),
    p99: round(median(runs.map((r) => r.p99)), 3),
    runs,
  };
}

/**
 * Every target at one concurrency, `repeats` rounds, round-robin with the
 * starting target rotating each round (drift in the machine's load hits all
 * alike). Returns the median of the runs per target.
 */
export async function rounds<K extends string>(
  targets: Record<K, Target>,
  connections: number,
  durationS: number,
  repeats: number,
  log: (s: string) => void,
  /** A warm-up: its runs are discarded, and a target slow to answer its first requests does not fail the item. */
  warmUp = false,
): Promise<Record<K, Summary>> {
  const keys = Object.keys(targets) as K[];
  const runs = Object.fromEntries(keys.map((k) => [k, [] as LoadRun[]])) as Record<K, LoadRun[]>;
  const width = Math.max(...keys.map((k) => k.length));
  for (let i = 0; i < repeats; i++) {
    for (let j = 0; j < keys.length; j++) {
      const k = keys[(i + j) % keys.length]!;
      let r = await load(targets[k], connections, durationS);
      // Nothing at all came back within the run (no answer, right or wrong): on a busy machine a slow route's
      // first answers to many connections can take longer than the run (128 connections at 18 req/s: 7 s), or
      // a storage flush stalls it. Not a refusal: run once more, long enough; silence again fails the item.
      if (!warmUp && r.ok + r.non2xx + r.errors + r.timeouts === 0) {
        const longer = Math.max(3 * durationS, 15);
        log(`  ${k} c=${connections}: no answer within ${durationS} s; once more for ${longer} s`);
        r = await load(targets[k], connections, longer);
      }
      runs[k].push(r);
      // A target that stopped answering as it should is not measured: the item fails, named, rather than printing rates of refusals.
      const bad = r.non2xx + r.errors + r.timeouts;
      if (!warmUp && (r.ok === 0 || bad > 0.01 * (r.ok + bad))) {
        throw new Error(
          `${k} (${targets[k].method} ${targets[k].url}) at ${connections} conn.: ${r.ok} good answers, ${r.non2xx} unexpected ${JSON.stringify(r.statuses)}, ${r.errors} socket errors, ${r.timeouts} timeouts`,
        );
      }
      log(
        `  ${k.padEnd(width)} c=${String(connections).padStart(3)}  ${String(r.rps).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms${r.non2xx || r.errors ? `  (unexpected statuses ${JSON.stringify(r.statuses)}, socket errors ${r.errors})` : ''}`,
      );
    }
  }
  return Object.fromEntries(keys.map((k) => [k, med(runs[k])])) as Record<K, Summary>;
}

/** A worker-side summary against its direct baseline. */
export function against(connections: number, worker: Summary, direct: Summary): Compared {
  return {
    connections,
    worker,
    direct,
    throughputRatio: ratio(worker.rps, direct.rps, 3),
    addedP50: round(worker.p50 - direct.p50, 3),
    addedP99: round(worker.p99 - direct.p99, 3),
    p50Ratio: ratio(worker.p50, direct.p50),
    p99Ratio: ratio(worker.p99, direct.p99),
    clean: [...worker.runs, ...direct.runs].every((r) => r.non2xx === 0 && r.errors === 0 && r.timeouts === 0),
  };
}

/** One request of each target must answer 2xx before any load is put on it. */
export async function preflight(t: Target): Promise<void> {
  const headers = {
    ...t.headers,
    'cf-connecting-ip': nextIp(),
    ...(t.idempotencyKey ? { 'idempotency-key': `bench-${runId}-pre-${ipCounter}` } : {}),
  };
  const res = await fetch(t.url, { method: t.method, headers, body: t.body });
  const text = await res.text();
  if (t.expect ? res.status !== t.expect : !res.ok) throw new Error(`${t.method} ${t.url} answered ${res.status}: ${text.slice(0, 500)}`);
}
