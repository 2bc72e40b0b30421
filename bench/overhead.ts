/**
 * Items 3 and 6 wired up. The worker under test is the deployable bundle
 * (`wrangler deploy --dry-run`) in workerd through Miniflare, with the
 * bindings of wrangler.toml (lib/miniflare-worker.ts); its vendor is a fast
 * local fake vendor in a node process of its own. In the same round-robin, at
 * the same concurrency:
 *   - the fake vendor called directly (the baseline of the targets);
 *   - the link route with a fresh Idempotency-Key per request, as the widget sends it;
 *   - two floor workers in the same Miniflare set-up (bench/fixtures/floor-worker.ts):
 *     do-nothing, and a bare pass-through making the same vendor call;
 *   - the same worker under `wrangler dev` (test/support/wrangler.ts, the
 *     `npm start` stack), to show what the dev tooling adds.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ROOT } from '../test/support/wrangler';
import { startMiniflareWorker, type MiniflareWorker } from './lib/miniflare-worker';
import { startVendorProcess } from './lib/vendor-process';
import { startWorker } from './lib/worker';
import { against, LINK_BODY, preflight, rounds, VENDOR_HEADERS, vendorLinkBody, type Compared, type Target } from './load';

export interface OverheadOptions {
  /** Concurrency of item 3 (also one of item 6's levels). */
  connections: number;
  /** Item 6's concurrency levels. */
  levels: number[];
  durationS: number;
  /** Rounds of item 3's round-robin. */
  repeats: number;
  /** Rounds per item 6 level (the item 3 level reuses item 3's rounds). */
  scalingRepeats: number;
  log: (s: string) => void;
}

export interface OverheadResult {
  runtime: string;
  link: Compared;
  /** The same with a fresh Idempotency-Key per request, as the widget sends it (a Durable Object claim + finish per request). */
  linkIdempotent: Compared;
  ruok: Compared;
  /**
   * The floor on this machine, same Miniflare set-up, same load: a
   * do-nothing worker (`ok`, vs the vendor's ruok) and a bare pass-through
   * worker that makes the same vendor call (`proxy`, vs the vendor's onboarding-url).
   */
  floor: { ok: Compared; proxy: Compared };
  /** The link route of the same worker under `wrangler dev` (the npm start stack), vs the vendor directly. */
  wranglerDev: Compared;
  scaling: Compared[];
  ruokNote: string;
  durationS: number;
  repeats: number;
  scalingRepeats: number;
}

const VARS = {
  KYC_API_KEY: 'bench-key',
  KYC_CUSTOMER_ID: 'bench-customer',
  // A fresh throwaway key per run: nothing secret-looking is committed.
  SESSION_SECRET: `bench-${randomUUID()}`,
};

export async function workerOverhead(o: OverheadOptions): Promise<OverheadResult> {
  const vendor = await startVendorProcess();
  let worker: MiniflareWorker | undefined;
  let floor: MiniflareWorker | undefined;
  let dev: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    worker = await startMiniflareWorker(join(ROOT, 'wrangler.toml'), { ...VARS, KYC_BASE_URL: vendor.url });
    floor = await startMiniflareWorker(join(ROOT, 'bench/fixtures/wrangler-floor.toml'), { VENDOR_URL: vendor.url });
    dev = await startWorker({ vars: { ...VARS, KYC_BASE_URL: vendor.url }, timeoutMs: 60_000 });

    const json = { 'content-type': 'application/json' };
    const link = (base: string): Target => ({
      method: 'POST',
      url: `${base}/api/onboarding-link`,
      headers: { ...json, origin: base },
      body: LINK_BODY,
    });
    const directLink: Target = {
      method: 'POST',
      url: `${vendor.url}/idv/v2/idvalidate/onboarding-url`,
      headers: { ...json, ...VENDOR_HEADERS },
      body: vendorLinkBody(worker.url),
    };
    const t = {
      workerLink: link(worker.url),
      directLink,
      workerLinkIdem: { ...link(worker.url), idempotencyKey: true },
      workerRuok: { method: 'GET', url: `${worker.url}/api/ruok`, headers: {} } satisfies Target,
      directRuok: { method: 'GET', url: `${vendor.url}/v2/kyc/ruok`, headers: { ...VENDOR_HEADERS } } satisfies Target,
      floorOk: { method: 'GET', url: `${floor.url}/ok`, headers: {} } satisfies Target,
      floorProxy: { method: 'POST', url: `${floor.url}/proxy`, headers: json, body: directLink.body } satisfies Target,
      devLink: link(dev.url),
    };
    for (const x of Object.values(t)) await preflight(x);

    // Warm-up: JIT in workerd, the vendor and the load generator; discarded.
    o.log('  warm-up (discarded)');
    await rounds(t, o.connections, 1, 1, () => {});

    o.log(`  item 3 at ${o.connections} connections, all targets round-robin, ${o.repeats} × ${o.durationS} s each`);
    const m = await rounds(t, o.connections, o.durationS, o.repeats, o.log);
    const c = o.connections;
    const linkC = against(c, m.workerLink, m.directLink);

    o.log(`  item 6: /api/onboarding-link vs vendor onboarding-url at ${o.levels.join('/')} connections`);
    const scaling: Compared[] = [];
    for (const level of o.levels) {
      if (level === c) {
        scaling.push(linkC);
        continue;
      }
      const r = await rounds({ workerLink: t.workerLink, directLink: t.directLink }, level, o.durationS, o.scalingRepeats, o.log);
      scaling.push(against(level, r.workerLink, r.directLink));
    }
    return {
      runtime: 'workerd via Miniflare (the wrangler deploy --dry-run bundle, wrangler.toml bindings, in-memory state)',
      link: linkC,
      linkIdempotent: against(c, m.workerLinkIdem, m.directLink),
      ruok: against(c, m.workerRuok, m.directRuok),
      floor: { ok: against(c, m.floorOk, m.directRuok), proxy: against(c, m.floorProxy, m.directLink) },
      wranglerDev: against(c, m.devLink, m.directLink),
      scaling,
      ruokNote:
        'The worker caches a vendor OK for 10 s per isolate (worker/browser-api/ruok.ts), so under load /api/ruok makes about one vendor call per 10 s: its figures are the worker answering on its own (middleware, limiter, routing), compared with the vendor answering ruok.',
      durationS: o.durationS,
      repeats: o.repeats,
      scalingRepeats: o.scalingRepeats,
    };
  } finally {
    await dev?.stop();
    await floor?.stop();
    await worker?.stop();
    await vendor.stop();
  }
}
