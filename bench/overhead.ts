/**
 * Items 3 and 6 wired up: starts the fake vendor (own process) and the worker
 * under wrangler dev pointing at it, runs the comparisons, stops both.
 */
import { startFloorWorker } from './lib/floor-worker';
import { startWorker } from './lib/worker';
import { against, LINK_BODY, rounds, preflight, VENDOR_HEADERS, vendorLinkBody, type Compared, type Target } from './load';
import { startVendorProcess } from './lib/vendor-process';

export interface OverheadOptions {
  /** Concurrency of item 3 (also one of item 6's levels). */
  connections: number;
  /** Item 6's concurrency levels. */
  levels: number[];
  durationS: number;
  repeats: number;
  log: (s: string) => void;
}

export interface OverheadResult {
  link: Compared;
  /** The same with a fresh Idempotency-Key per request, as the widget sends it (a Durable Object claim + finish per request). */
  linkIdempotent: Compared;
  ruok: Compared;
  /**
   * The floor on this machine, same wrangler dev, same load: a do-nothing
   * worker (`ok`, vs the vendor's ruok) and a bare pass-through worker that
   * makes the same vendor call (`proxy`, vs the vendor's onboarding-url).
   */
  floor: { ok: Compared; proxy: Compared };
  scaling: Compared[];
  ruokNote: string;
  durationS: number;
  repeats: number;
}

export async function workerOverhead(o: OverheadOptions): Promise<OverheadResult> {
  const vendor = await startVendorProcess();
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  let floorWorker: Awaited<ReturnType<typeof startFloorWorker>> | undefined;
  try {
    worker = await startWorker({
      vars: {
        KYC_BASE_URL: vendor.url,
        KYC_API_KEY: 'bench-key',
        KYC_CUSTOMER_ID: 'bench-customer',
        SESSION_SECRET: 'bench-session-secret-not-for-production-0123456789',
      },
      timeoutMs: 60_000,
    });
    const json = { 'content-type': 'application/json' };
    const t = {
      workerLink: { method: 'POST', url: `${worker.url}/api/onboarding-link`, headers: { ...json, origin: worker.url }, body: LINK_BODY } satisfies Target,
      directLink: { method: 'POST', url: `${vendor.url}/idv/v2/idvalidate/onboarding-url`, headers: { ...json, ...VENDOR_HEADERS }, body: vendorLinkBody(worker.url) } satisfies Target,
      workerLinkIdem: { method: 'POST', url: `${worker.url}/api/onboarding-link`, headers: { ...json, origin: worker.url }, body: LINK_BODY, idempotencyKey: true } satisfies Target,
      workerRuok: { method: 'GET', url: `${worker.url}/api/ruok`, headers: {} } satisfies Target,
      directRuok: { method: 'GET', url: `${vendor.url}/v2/kyc/ruok`, headers: { ...VENDOR_HEADERS } } satisfies Target,
    };
    for (const x of Object.values(t)) await preflight(x);

    floorWorker = await startFloorWorker(vendor.url);
    const floorOk = { method: 'GET', url: `${floorWorker.url}/ok`, headers: {} } satisfies Target;
    const floorProxy = { method: 'POST', url: `${floorWorker.url}/proxy`, headers: json, body: t.directLink.body } satisfies Target;
    await preflight(floorOk);
    await preflight(floorProxy);
    const all = { ...t, floorOk, floorProxy };

    // Warm-up: JIT in workerd, the vendor and the load generator; discarded.
    o.log('  warm-up (discarded)');
    await rounds(all, o.connections, 1, 1, () => {});

    o.log(`  item 3 at ${o.connections} connections: worker, vendor direct and floor workers round-robin, ${o.repeats} × ${o.durationS} s each`);
    const m = await rounds(all, o.connections, o.durationS, o.repeats, o.log);
    const link = against(o.connections, m.workerLink, m.directLink);
    const linkIdempotent = against(o.connections, m.workerLinkIdem, m.directLink);
    const ruok = against(o.connections, m.workerRuok, m.directRuok);
    const floor = { ok: against(o.connections, m.floorOk, m.directRuok), proxy: against(o.connections, m.floorProxy, m.directLink) };

    o.log(`  item 6: /api/onboarding-link vs vendor onboarding-url at ${o.levels.join('/')} connections`);
    const scaling: Compared[] = [];
    for (const c of o.levels) {
      if (c === o.connections) {
        scaling.push(link);
        continue;
      }
      const r = await rounds({ workerLink: t.workerLink, directLink: t.directLink }, c, o.durationS, o.repeats, o.log);
      scaling.push(against(c, r.workerLink, r.directLink));
    }
    return {
      link,
      linkIdempotent,
      ruok,
      floor,
      scaling,
      ruokNote:
        'The worker caches a vendor OK for 10 s per isolate (worker/routes/ruok.ts), so under load /api/ruok makes about one vendor call per 10 s: its figures are the worker answering on its own (middleware, limiter, routing), compared with the vendor answering ruok.',
      durationS: o.durationS,
      repeats: o.repeats,
    };
  } finally {
    await worker?.stop();
    await floorWorker?.stop();
    await vendor.stop();
  }
}

