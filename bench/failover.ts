/**
 * Item 10: a link while the first vendor is down. A partner on `idv` then
 * `stripe` with VENDOR_FAILOVER=before_start (the environment partner of the
 * deployable bundle in Miniflare, as item 3), twice: one worker whose idv is
 * the fast fake vendor (healthy), one whose idv is a server that takes every
 * request and never answers (down the slow way: a refused connection would
 * fail fast and show nothing). Stripe is the double (lib/vendor-server.ts)
 * behind both.
 *
 *   - The first link after the outage begins (a fresh isolate, warmed on a
 *     route that asks no vendor) waits for idv's KYC_TIMEOUT_MS once, then is
 *     made by stripe: it pays at most one timeout (worker/vendors/health.ts).
 *     The full run asks again after each of two VENDOR_DOWN_MS windows (the
 *     one request per window that asks the vendor again).
 *   - Then, idv known down, the link route at one connection, healthy and
 *     down in the same round-robin: the p50 of a link while idv is down is
 *     within 1.2× a healthy link's (no timeout paid per request).
 * Each link must be made by stripe (its url is the double's hosted page),
 * or the item fails.
 */
import { join } from 'node:path';
import { ROOT } from '../test/support/wrangler';
import { VENDOR_DOWN_MS } from '../worker/vendors/health';
import { startMiniflareWorker, type MiniflareWorker } from './lib/miniflare-worker';
import { startVendorProcess } from './lib/vendor-process';
import type { Row } from './lib/table';
import { ms, ratio, round, sleep } from './lib/stats';
import { LINK_BODY, PARTNER_ORIGIN, preflight, rounds, type Summary, type Target } from './load';
import { VARS } from './overhead';

export interface FailoverOptions {
  /** KYC_TIMEOUT_MS of both workers. */
  timeoutMs: number;
  durationS: number;
  repeats: number;
  /** First requests measured: the outage's first, then one after each further VENDOR_DOWN_MS window. */
  firsts: number;
  log: (s: string) => void;
}

export interface FailoverResult {
  timeoutMs: number;
  /** Each first request's time, ms (the outage's first, then one per window). */
  firstMs: number[];
  /** The healthy worker's first link, ms: the baseline of the outage's first (both the first link of a fresh isolate). */
  healthyFirstMs: number;
  /** The request right after the first (idv known down), ms. */
  secondMs: number;
  healthy: Summary;
  down: Summary;
  /** down p50 / healthy p50, per round: the spread of the verdict. */
  roundRatios: number[];
  /** down p50 / healthy p50 of the medians. */
  ratio: number;
  target: number;
  verdict: 'met' | 'not met' | 'inconclusive';
  /** What each first request paid over its healthy baseline (the outage's first over the healthy first; the later ones over the healthy p50), ms. */
  paidMs: number[];
  /**
   * At most one timeout per first request: met when each paid ≤ 1.25 × KYC_TIMEOUT_MS, not met when one paid ≥ 2 ×
   * (a second timeout), else inconclusive (a busy machine's noise between the two).
   */
  firstVerdict: 'met' | 'not met' | 'inconclusive';
  durationS: number;
  repeats: number;
}

/** A live-mode key for the double (lib/vendor-server.ts answers it as test mode with livemode true): idv beside it is live. */
const STRIPE_BENCH_LIVE_KEY = 'sk_live_kyconboardbench';

const vars = (idvUrl: string, stripeApi: string, timeoutMs: number) => ({
  ...VARS,
  KYC_BASE_URL: idvUrl,
  KYC_TIMEOUT_MS: String(timeoutMs),
  KYC_VENDOR: 'idv,stripe',
  VENDOR_FAILOVER: 'before_start',
  STRIPE_API_BASE: stripeApi,
  STRIPE_SECRET_KEY: STRIPE_BENCH_LIVE_KEY,
});

let ip = 0;
/** One link, timed; it must be made by `by` (the hosted page's path says which vendor made it). */
async function timedLink(base: string, by: 'idv' | 'stripe'): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${base}/api/onboarding-link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: PARTNER_ORIGIN, 'cf-connecting-ip': `10.250.0.${ip++ % 250}` },
    body: LINK_BODY,
  });
  const text = await res.text();
  const elapsed = performance.now() - t;
  if (res.status !== 200) throw new Error(`link answered ${res.status}: ${text.slice(0, 300)}`);
  const url = (JSON.parse(text) as { url?: string }).url ?? '';
  const stripe = url.includes('/sandbox/stripe/');
  if (stripe !== (by === 'stripe')) throw new Error(`the link was not made by ${by}: ${url.slice(0, 120)}`);
  return round(elapsed, 2);
}

export async function vendorDown(o: FailoverOptions): Promise<FailoverResult> {
  const vendor = await startVendorProcess();
  let healthy: MiniflareWorker | undefined;
  let down: MiniflareWorker | undefined;
  try {
    const stripeApi = `${vendor.url}/sandbox/stripe`;
    const config = join(ROOT, 'wrangler.toml');
    healthy = await startMiniflareWorker(config, vars(vendor.url, stripeApi, o.timeoutMs));
    down = await startMiniflareWorker(config, vars(vendor.silent, stripeApi, o.timeoutMs));
    // Warm both isolates on a route that asks no vendor (so the down one learns nothing yet).
    const settings: Target = { method: 'GET', url: '', headers: { origin: PARTNER_ORIGIN } };
    for (const w of [healthy, down]) for (let i = 0; i < 3; i++) await preflight({ ...settings, url: `${w.url}/api/settings` });
    const healthyFirst = await timedLink(healthy.url, 'idv');

    o.log(`  the first link after idv went down (KYC_TIMEOUT_MS ${o.timeoutMs})`);
    const firstMs = [await timedLink(down.url, 'stripe')];
    const secondMs = await timedLink(down.url, 'stripe');
    o.log(`  first ${ms(firstMs[0]!)}, the next ${ms(secondMs)} (a healthy link's first ${ms(healthyFirst)})`);

    const link = (base: string): Target => ({
      method: 'POST',
      url: `${base}/api/onboarding-link`,
      headers: { 'content-type': 'application/json', origin: PARTNER_ORIGIN },
      body: LINK_BODY,
    });
    o.log(`  idv known down: link route at 1 conn., healthy and down round-robin, ${o.repeats} × ${o.durationS} s`);
    const perRound: Record<'healthy' | 'down', Summary>[] = [];
    for (let i = 0; i < o.repeats; i++) {
      perRound.push(await rounds({ healthy: link(healthy.url), down: link(down.url) }, 1, o.durationS, 1, o.log));
    }
    for (let i = 1; i < o.firsts; i++) {
      // Past the window, the next link asks idv again: the one request per window that pays the timeout.
      await sleep(VENDOR_DOWN_MS + 500);
      const again = await timedLink(down.url, 'stripe');
      o.log(`  after a ${VENDOR_DOWN_MS / 1000} s window: ${ms(again)}`);
      firstMs.push(again);
    }
    const merge = (k: 'healthy' | 'down'): Summary => {
      const runs = perRound.flatMap((r) => r[k].runs);
      const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
      return { rps: med(runs.map((r) => r.rps)), p50: med(runs.map((r) => r.p50)), p99: med(runs.map((r) => r.p99)), runs };
    };
    const h = merge('healthy');
    const d = merge('down');
    const roundRatios = perRound.map((r) => ratio(r.down.p50, r.healthy.p50, 3));
    const target = 1.2;
    const verdict = roundRatios.every((x) => x <= target) ? 'met' : roundRatios.every((x) => x > target) ? 'not met' : 'inconclusive';
    const paidMs = firstMs.map((f, i) => round(f - (i === 0 ? healthyFirst : h.p50), 2));
    const firstVerdict = paidMs.every((p) => p <= 1.25 * o.timeoutMs)
      ? 'met'
      : paidMs.some((p) => p >= 2 * o.timeoutMs)
        ? 'not met'
        : 'inconclusive';
    return {
      timeoutMs: o.timeoutMs,
      firstMs,
      healthyFirstMs: healthyFirst,
      secondMs,
      paidMs,
      healthy: h,
      down: d,
      roundRatios,
      ratio: ratio(d.p50, h.p50, 3),
      target,
      verdict,
      firstVerdict,
      durationS: o.durationS,
      repeats: o.repeats,
    };
  } finally {
    await down?.stop();
    await healthy?.stop();
    await vendor.stop();
  }
}

export function failoverRows(f: FailoverResult | { error: string } | undefined): Row[] {
  if (!f) return [];
  if ('error' in f) return [['10', 'a link while the first vendor is down', 'error', '', '', '', f.error.split('\n')[0]!.slice(0, 120)]];
  const spread =
    f.roundRatios.length > 1 ? ` (rounds ${Math.min(...f.roundRatios).toFixed(2)}–${Math.max(...f.roundRatios).toFixed(2)}×)` : '';
  return [
    [
      '10',
      'a link while idv is down (idv, stripe, failover before start; idv known down), p50 1 conn.',
      ms(f.down.p50),
      `a healthy link (idv up) ${ms(f.healthy.p50)}`,
      `${f.ratio.toFixed(2)}×`,
      `≤ ${f.target}× a healthy link`,
      f.verdict === 'inconclusive' ? `inconclusive${spread}` : `${f.verdict}${spread}`,
    ],
    [
      '10',
      `↳ the first link after idv goes down (idv never answers; KYC_TIMEOUT_MS ${f.timeoutMs})`,
      f.firstMs.map(ms).join(', '),
      `a healthy first link ${ms(f.healthyFirstMs)}${f.firstMs.length > 1 ? `, later a healthy link ${ms(f.healthy.p50)}` : ''}`,
      f.paidMs.map((p) => `+${ms(p)}`).join(', '),
      'at most one KYC_TIMEOUT_MS',
      f.firstVerdict === 'inconclusive'
        ? `inconclusive (paid ${f.paidMs.map((p) => (p / f.timeoutMs).toFixed(2)).join(', ')}× the timeout: between 1.25× and 2×)`
        : f.firstVerdict,
    ],
    [
      '10',
      '↳ the link right after it (idv known down)',
      ms(f.secondMs),
      `the first ${ms(f.firstMs[0]!)}`,
      '',
      '',
      f.firstMs.length > 1 ? 'the later firsts: one per VENDOR_DOWN_MS window asks idv again' : 'context',
    ],
  ];
}
