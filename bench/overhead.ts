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
 *   - the durable floor (bench/fixtures/durable-floor-worker.ts): the same vendor
 *     call and one durable write with an alarm in a new object per request, as
 *     each verification is its own object; and, for context only, the same
 *     write in an object already running (what creating the object costs);
 *   - the same worker under `wrangler dev` (test/support/wrangler.ts, the
 *     `npm start` stack), to show what the dev tooling adds.
 * Then the same at one connection (no queueing): the link route against
 * /api/ruok through the same stack and against both floors.
 * Item 3 once more for a partner on `stripe` (KYC_VENDOR=stripe), the Stripe
 * double behind it (lib/vendor-server.ts) and behind the durable floor
 * (`?vendor=stripe`), in a round-robin of its own, with the same goals.
 * Requests come from a partner page (PARTNER_ORIGIN, in ALLOWED_ORIGINS, as a
 * partner's origin is configured), each with its own CF-Connecting-IP.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ROOT } from '../test/support/wrangler';
import { startMiniflareWorker, type MiniflareWorker } from './lib/miniflare-worker';
import { startVendorProcess } from './lib/vendor-process';
import { startWorker } from './lib/worker';
import { ratio, round } from './lib/stats';
import {
  against,
  LINK_BODY,
  STRIPE_TEST_KEY,
  stripeSessionBody,
  PARTNER_ORIGIN,
  preflight,
  rounds,
  VENDOR_HEADERS,
  vendorLinkBody,
  type Compared,
  type Summary,
  type Target,
} from './load';

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
  /** Also measure the link route under wrangler dev (a context row; slow to start). */
  wranglerDev: boolean;
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
  floor: {
    ok: Compared;
    proxy: Compared;
    /** Vendor call + one write with an alarm in a new object per request: the link route's least (one object per verification). */
    durable: Compared;
    /** Context: the same write in an object already running (what creating an object costs; not an option for verifications). */
    durableRunning: Compared;
  };
  /** At one connection: the link route (keyless and with a key), /api/ruok and the floors, side by side. */
  one: {
    link: Compared;
    linkIdempotent: Compared;
    ruok: Summary;
    proxy: Summary;
    durable: Summary;
    durableRunning: Summary;
  };
  goals: {
    /** p50 at 1 conn. of the link route over /api/ruok: ≤ 3 ms. */
    addedOverRuokP50: number;
    /** Link throughput at `connections` / the durable floor's: ≥ 0.7. */
    ofDurableFloor: number;
    /** With an Idempotency-Key / keyless, throughput at `connections`: ≥ 0.8. */
    idempotentOfKeyless: number;
  };
  /** Item 3 for a partner on `stripe`: the Stripe double behind the worker and behind the durable floor (absent in runs recorded before it). */
  stripe?: {
    /** The link route vs the double called directly, at `connections`. */
    link: Compared;
    linkIdempotent: Compared;
    /** The durable floor making Stripe's call vs the double directly. */
    durable: Compared;
    /** At one connection: the link route vs /api/ruok of the same worker, and the durable floor. */
    one: { link: Compared; durable: Summary };
    goals: OverheadResult['goals'];
    durationS: number;
  };
  /** The link route of the same worker under `wrangler dev` (the npm start stack), vs the vendor directly; not in --quick. */
  wranglerDev?: Compared;
  scaling: Compared[];
  ruokNote: string;
  durationS: number;
  repeats: number;
  scalingRepeats: number;
}

/** The bench's worker settings (item 10 starts its workers with them too). */
export const VARS = {
  ALLOWED_ORIGINS: PARTNER_ORIGIN,
  // One partner sends every request of the run (tens of thousands in a full run): its open budget is sized for that,
  // as an operator sizes a busy partner's (the default, 5,000 open at once, would answer 429 midway).
  LIMIT_OPEN_PER_PARTNER: '10000000',
  // The run's verifications would all come due 30 s after they were made and poll the
  // vendor in a burst while later rounds measure: their first poll is an hour away instead.
  RESULT_POLL_SECONDS: '3600',
  KYC_API_KEY: 'bench-key',
  KYC_CUSTOMER_ID: 'bench-customer',
  // A fresh throwaway key per run: nothing secret-looking is committed.
  SESSION_SECRET: `bench-${randomUUID()}`,
};

export async function workerOverhead(o: OverheadOptions): Promise<OverheadResult> {
  const vendor = await startVendorProcess();
  let worker: MiniflareWorker | undefined;
  let floor: MiniflareWorker | undefined;
  let durableFloor: MiniflareWorker | undefined;
  let stripeWorker: MiniflareWorker | undefined;
  let dev: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    worker = await startMiniflareWorker(join(ROOT, 'wrangler.toml'), { ...VARS, KYC_BASE_URL: vendor.url });
    floor = await startMiniflareWorker(join(ROOT, 'bench/fixtures/wrangler-floor.toml'), { VENDOR_URL: vendor.url });
    const stripeApi = `${vendor.url}/sandbox/stripe`;
    durableFloor = await startMiniflareWorker(join(ROOT, 'bench/fixtures/wrangler-durable-floor.toml'), {
      VENDOR_URL: vendor.url,
      STRIPE_URL: stripeApi,
    });
    stripeWorker = await startMiniflareWorker(join(ROOT, 'wrangler.toml'), {
      ...VARS,
      KYC_BASE_URL: vendor.url,
      KYC_VENDOR: 'stripe',
      STRIPE_API_BASE: stripeApi,
      STRIPE_SECRET_KEY: STRIPE_TEST_KEY,
    });
    if (o.wranglerDev) dev = await startWorker({ vars: { ...VARS, KYC_BASE_URL: vendor.url }, timeoutMs: 60_000 });

    const json = { 'content-type': 'application/json' };
    const link = (base: string): Target => ({
      method: 'POST',
      url: `${base}/api/onboarding-link`,
      headers: { ...json, origin: PARTNER_ORIGIN },
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
      durable: { method: 'POST', url: `${durableFloor.url}/durable`, headers: json, body: directLink.body } satisfies Target,
      durableRunning: { method: 'POST', url: `${durableFloor.url}/durable-running`, headers: json, body: directLink.body } satisfies Target,
    };
    const stripeBody = stripeSessionBody(stripeWorker.url);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const st = {
      stripeLink: link(stripeWorker.url),
      stripeLinkIdem: { ...link(stripeWorker.url), idempotencyKey: true },
      stripeDirect: {
        method: 'POST',
        url: `${stripeApi}/v1/identity/verification_sessions`,
        headers: { ...form, authorization: `Bearer ${STRIPE_TEST_KEY}` },
        body: stripeBody,
      } satisfies Target,
      stripeDurable: { method: 'POST', url: `${durableFloor.url}/durable?vendor=stripe`, headers: form, body: stripeBody } satisfies Target,
      stripeRuok: { method: 'GET', url: `${stripeWorker.url}/api/ruok`, headers: {} } satisfies Target,
    };
    for (const x of [...Object.values(t), ...Object.values(st)]) await preflight(x);
    if (dev) await preflight(link(dev.url));

    // Warm-up: JIT in workerd, the vendor and the load generator; discarded.
    o.log('  warm-up (discarded)');
    await rounds(t, o.connections, 2, 1, () => {}, true);

    o.log(`  item 3 at ${o.connections} connections, all targets round-robin, ${o.repeats} × ${o.durationS} s each`);
    const m = await rounds(t, o.connections, o.durationS, o.repeats, o.log);
    // wrangler dev beside the vendor, in rounds of its own (a context row).
    const md = dev
      ? await rounds({ devLink: link(dev.url), directLink: t.directLink }, o.connections, o.durationS, o.repeats, o.log)
      : undefined;
    const c = o.connections;
    const linkC = against(c, m.workerLink, m.directLink);

    o.log(
      `  item 3 at 1 connection (no queueing): the link route, /api/ruok and the floors, ${Math.min(o.repeats, 3)} × ${o.durationS} s each`,
    );
    const one = await rounds(
      {
        workerLink: t.workerLink,
        workerLinkIdem: t.workerLinkIdem,
        workerRuok: t.workerRuok,
        floorProxy: t.floorProxy,
        durable: t.durable,
        durableRunning: t.durableRunning,
        directLink: t.directLink,
      },
      1,
      o.durationS,
      Math.min(o.repeats, 3),
      o.log,
    );

    o.log(`  item 3 for a partner on stripe (the Stripe double behind it), ${o.connections} and 1 conn., ${o.durationS} s each`);
    const sm = await rounds(
      { stripeLink: st.stripeLink, stripeLinkIdem: st.stripeLinkIdem, stripeDurable: st.stripeDurable, stripeDirect: st.stripeDirect },
      o.connections,
      o.durationS,
      o.repeats,
      o.log,
    );
    const s1 = await rounds(
      { stripeLink: st.stripeLink, stripeRuok: st.stripeRuok, stripeDurable: st.stripeDurable },
      1,
      o.durationS,
      Math.min(o.repeats, 3),
      o.log,
    );

    o.log(`  item 6: /api/onboarding-link vs vendor onboarding-url at ${o.levels.join('/')} connections`);
    const scaling: Compared[] = [];
    for (const level of o.levels) {
      if (level === c) {
        scaling.push(linkC);
        continue;
      }
      if (level === 1) {
        scaling.push(against(1, one.workerLink, one.directLink));
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
      floor: {
        ok: against(c, m.floorOk, m.directRuok),
        proxy: against(c, m.floorProxy, m.directLink),
        durable: against(c, m.durable, m.directLink),
        durableRunning: against(c, m.durableRunning, m.directLink),
      },
      one: {
        link: against(1, one.workerLink, one.workerRuok),
        linkIdempotent: against(1, one.workerLinkIdem, one.workerLink),
        ruok: one.workerRuok,
        proxy: one.floorProxy,
        durable: one.durable,
        durableRunning: one.durableRunning,
      },
      goals: {
        addedOverRuokP50: round(one.workerLink.p50 - one.workerRuok.p50, 3),
        ofDurableFloor: ratio(m.workerLink.rps, m.durable.rps, 3),
        idempotentOfKeyless: ratio(m.workerLinkIdem.rps, m.workerLink.rps, 3),
      },
      stripe: {
        link: against(c, sm.stripeLink, sm.stripeDirect),
        linkIdempotent: against(c, sm.stripeLinkIdem, sm.stripeLink),
        durable: against(c, sm.stripeDurable, sm.stripeDirect),
        one: { link: against(1, s1.stripeLink, s1.stripeRuok), durable: s1.stripeDurable },
        goals: {
          addedOverRuokP50: round(s1.stripeLink.p50 - s1.stripeRuok.p50, 3),
          ofDurableFloor: ratio(sm.stripeLink.rps, sm.stripeDurable.rps, 3),
          idempotentOfKeyless: ratio(sm.stripeLinkIdem.rps, sm.stripeLink.rps, 3),
        },
        durationS: o.durationS,
      },
      ...(md ? { wranglerDev: against(c, md.devLink, md.directLink) } : {}),
      scaling,
      ruokNote:
        'The worker caches a vendor OK for 10 s per isolate (worker/browser-api/ruok.ts), so under load /api/ruok makes about one vendor call per 10 s: its figures are the worker answering on its own (middleware, limiter, routing), compared with the vendor answering ruok.',
      durationS: o.durationS,
      repeats: o.repeats,
      scalingRepeats: o.scalingRepeats,
    };
  } finally {
    await dev?.stop();
    await stripeWorker?.stop();
    await durableFloor?.stop();
    await floor?.stop();
    await worker?.stop();
    await vendor.stop();
  }
}
