/**
 * Items 3 and 6 wired up: starts the fake vendor (own process) and the worker
 * under wrangler dev pointing at it, runs the comparisons, stops both.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../test/support/wrangler';
import { startWorker } from './lib/worker';
import { compare, LINK_BODY, preflight, VENDOR_HEADERS, vendorLinkBody, type Compared, type Target } from './load';
import { startVendorProcess } from './lib/vendor-process';

export interface OverheadOptions {
  /** Concurrency of item 3. */
  connections: number;
  /** Item 6's concurrency levels. */
  levels: number[];
  durationS: number;
  repeats: number;
  log: (s: string) => void;
}

export interface OverheadResult {
  link: Compared;
  ruok: Compared;
  /**
   * The local stack's own floor: a small static asset answered by wrangler
   * dev's asset server (no worker code runs) vs the vendor's ruok. What the
   * worker cannot go below on this machine, whatever its code does.
   */
  floor: Compared & { asset: string };
  scaling: Compared[];
  ruokNote: string;
  durationS: number;
  repeats: number;
}

export async function workerOverhead(o: OverheadOptions): Promise<OverheadResult> {
  const vendor = await startVendorProcess();
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
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
      workerRuok: { method: 'GET', url: `${worker.url}/api/ruok`, headers: {} } satisfies Target,
      directRuok: { method: 'GET', url: `${vendor.url}/v2/kyc/ruok`, headers: { ...VENDOR_HEADERS } } satisfies Target,
    };
    for (const x of Object.values(t)) await preflight(x);
    const asset = smallestAsset();
    const workerAsset = { method: 'GET', url: `${worker.url}/${asset}`, headers: {} } satisfies Target;
    await preflight(workerAsset);

    // Warm-up: JIT in workerd, the vendor and the load generator; discarded.
    o.log('  warm-up (discarded)');
    await compare(t.workerLink, t.directLink, o.connections, 2, 1, () => {});
    await compare(t.workerRuok, t.directRuok, o.connections, 1, 1, () => {});

    o.log(`  /api/onboarding-link vs vendor onboarding-url, ${o.levels.join('/')} connections, ${o.repeats} × ${o.durationS} s each`);
    const scaling: Compared[] = [];
    for (const c of o.levels) scaling.push(await compare(t.workerLink, t.directLink, c, o.durationS, o.repeats, o.log));
    let link = scaling.find((s) => s.connections === o.connections);
    if (!link) link = await compare(t.workerLink, t.directLink, o.connections, o.durationS, o.repeats, o.log);

    o.log(`  /api/ruok vs vendor ruok, ${o.connections} connections`);
    const ruok = await compare(t.workerRuok, t.directRuok, o.connections, o.durationS, o.repeats, o.log);
    o.log(`  wrangler dev floor: static /${asset} vs vendor ruok, ${o.connections} connections`);
    const floor = { ...(await compare(workerAsset, t.directRuok, o.connections, o.durationS, o.repeats, o.log)), asset: `/${asset}` };
    return {
      link,
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
    await vendor.stop();
  }
}

/** The smallest file the worker serves as a static asset (dist/public). */
function smallestAsset(): string {
  const dir = join(ROOT, 'dist/public');
  const files = readdirSync(dir)
    .filter((f) => !f.startsWith('_') && statSync(join(dir, f)).isFile())
    .sort((a, b) => statSync(join(dir, a)).size - statSync(join(dir, b)).size);
  if (!files[0]) throw new Error('dist/public is empty: run npm run build');
  return files[0];
}
