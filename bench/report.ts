/** The one table's rows, built from the results (rendered by lib/table.ts; the results' shape is types.ts). */
import { failoverRows } from './failover';
import { opsRows } from './ops';
import type { Row } from './lib/table';
import { kb, ms, pct, round } from './lib/stats';
import type { BenchResults } from './types';

const x = (r: number) => `${r.toFixed(2)}×`;
const rps = (n: number) => `${Math.round(n).toLocaleString('en-US')} req/s`;
const bytes = (n: number) => `${n.toLocaleString('en-US')} B`;

export function rows(r: BenchResults): Row[] {
  const out: Row[] = [];
  const err = (item: string, what: string, e: string) => out.push([item, what, 'error', '', '', '', e.split('\n')[0]!.slice(0, 120)]);

  const s = r.items.widgetSize;
  if (s && 'widget' in s) {
    const over = s.widget.gzipBytes - s.budgetGzipBytes;
    out.push([
      '1',
      'widget bundle, gzip',
      `${bytes(s.widget.gzipBytes)} (${kb(s.widget.gzipBytes)})`,
      `minimal Lit element ${bytes(s.minimal.gzipBytes)}`,
      x(s.ratioGzip),
      `≤ ${kb(s.budgetGzipBytes)} (budget)`,
      over > 0 ? `OVER by ${bytes(over)}` : `within (${bytes(-over)} to spare)`,
    ]);
    out.push([
      '1',
      'widget bundle, brotli',
      `${bytes(s.widget.brotliBytes)} (${kb(s.widget.brotliBytes)})`,
      `minimal Lit element ${bytes(s.minimal.brotliBytes)}`,
      x(s.ratioBrotli),
      '',
      '',
    ]);
  } else if (s) err('1', 'widget bundle', s.error);

  const st = r.items.widgetStart;
  if (st && 'widget' in st) {
    out.push([
      '2',
      `widget start: eval → interactive form (median of ${st.loads})`,
      ms(st.widget.median),
      `minimal element ${ms(st.minimal.median)}`,
      x(st.ratio),
      `≤ ${st.target}×`,
      st.met ? 'met' : `missed by ${x(round(st.ratio - st.target, 2))} (${ms(st.widget.median - st.target * st.minimal.median)})`,
    ]);
    if (st.staticForm)
      out.push([
        '2',
        `↳ the same form's markup + CSS in a logic-free Lit element`,
        ms(st.staticForm.median),
        `widget ${ms(st.widget.median)}`,
        `widget ${x(st.staticForm.ratio)}`,
        '',
        `context: ${x(round(st.staticForm.median / st.minimal.median, 2))} the minimal element with no widget code at all`,
      ]);
    const bd = st.breakdown;
    out.push([
      '2',
      `↳ of which module evaluation / render + style + layout`,
      `${ms(bd.widget.evaluation)} / ${ms(bd.widget.renderAndLayout)}`,
      `${ms(bd.minimal.evaluation)} / ${ms(bd.minimal.renderAndLayout)}`,
      `${x(round(bd.widget.evaluation / bd.minimal.evaluation, 2))} / ${x(round(bd.widget.renderAndLayout / bd.minimal.renderAndLayout, 2))}`,
      '',
      `evaluation alone: median of ${bd.loads} loads without the element`,
    ]);
    out.push([
      '2',
      'widget start incl. parse + compile (from responseEnd)',
      ms(st.widget.fromResponseEnd.median),
      `minimal element ${ms(st.minimal.fromResponseEnd.median)}`,
      x(st.ratioFromResponseEnd),
      '',
      'for information',
    ]);
  } else if (st) err('2', 'widget start', st.error);

  const o = r.items.workerOverhead;
  if (o && 'link' in o) {
    const c = o.link.connections;
    const l = o.link;
    const g = o.goals;
    const one = o.one;
    out.push([
      '3',
      `/api/onboarding-link p50, 1 conn. (fast vendor, no queueing)`,
      ms(one.link.worker.p50),
      `/api/ruok, same stack ${ms(one.ruok.p50)}`,
      `+${ms(g.addedOverRuokP50)}`,
      '≤ +3 ms over /api/ruok',
      g.addedOverRuokP50 <= 3 ? 'met' : `missed by ${ms(g.addedOverRuokP50 - 3)}`,
    ]);
    out.push([
      '3',
      `↳ the floors at 1 conn.: pass-through / durable (new object per request)`,
      `${ms(one.proxy.p50)} / ${ms(one.durable.p50)}`,
      `link route ${ms(one.link.worker.p50)}`,
      '',
      '',
      `durability costs ${ms(one.durable.p50 - one.proxy.p50)} over the pass-through; our code ${ms(one.link.worker.p50 - one.durable.p50)} over the durable floor`,
    ]);
    out.push([
      '3',
      `/api/onboarding-link throughput, ${c} conn.`,
      rps(l.worker.rps),
      `durable floor ${rps(o.floor.durable.worker.rps)}`,
      pct(g.ofDurableFloor),
      '≥ 70% of the durable floor',
      g.ofDurableFloor >= 0.7 ? 'met' : `missed by ${round((0.7 - g.ofDurableFloor) * 100, 1)} points`,
    ]);
    const li = o.linkIdempotent;
    out.push([
      '3',
      `↳ with an Idempotency-Key (as the widget sends), ${c} conn.`,
      `${rps(li.worker.rps)}, p50 ${ms(li.worker.p50)}`,
      `keyless ${rps(l.worker.rps)}, p50 ${ms(l.worker.p50)}`,
      pct(g.idempotentOfKeyless),
      '≥ 80% of keyless',
      g.idempotentOfKeyless >= 0.8 ? 'met' : `missed by ${round((0.8 - g.idempotentOfKeyless) * 100, 1)} points`,
    ]);
    out.push([
      '3',
      `↳ with an Idempotency-Key, p50 1 conn.`,
      ms(one.linkIdempotent.worker.p50),
      `keyless ${ms(one.linkIdempotent.direct.p50)}`,
      `${one.linkIdempotent.addedP50 >= 0 ? '+' : ''}${ms(one.linkIdempotent.addedP50)}`,
      '',
      'the key costs a claim and a finish in an idempotency object',
    ]);
    out.push([
      '3',
      `/api/onboarding-link vs the vendor directly, ${c} conn.`,
      `${rps(l.worker.rps)}, p50 ${ms(l.worker.p50)}, p99 ${ms(l.worker.p99)}`,
      `vendor direct ${rps(l.direct.rps)}, p50 ${ms(l.direct.p50)}`,
      pct(l.throughputRatio),
      '',
      `context: +${ms(l.addedP50)} p50 over a node server answering from memory`,
    ]);
    const u = o.ruok;
    out.push([
      '3',
      `/api/ruok (vendor OK cached 10 s), ${c} conn.`,
      `${rps(u.worker.rps)}, p50 ${ms(u.worker.p50)}`,
      `vendor direct ${rps(u.direct.rps)}, p50 ${ms(u.direct.p50)}`,
      pct(u.throughputRatio),
      '',
      `context: the worker answering on its own (+${ms(u.addedP50)} p50)`,
    ]);
    const fo = o.floor.ok;
    const fp = o.floor.proxy;
    const fd = o.floor.durable;
    const fr = o.floor.durableRunning;
    out.push([
      '3',
      `floor: do-nothing worker, same workerd set-up, ${c} conn.`,
      `${rps(fo.worker.rps)}, p50 ${ms(fo.worker.p50)}`,
      `vendor ruok ${rps(fo.direct.rps)}`,
      pct(fo.throughputRatio),
      '',
      `context: the local stack alone (+${ms(fo.addedP50)} p50)`,
    ]);
    out.push([
      '3',
      `floor: pass-through worker (one vendor fetch), ${c} conn.`,
      `${rps(fp.worker.rps)}, p50 ${ms(fp.worker.p50)}`,
      `vendor direct ${rps(fp.direct.rps)}`,
      pct(fp.throughputRatio),
      '',
      `context: the least any proxy costs here (+${ms(fp.addedP50)} p50)`,
    ]);
    out.push([
      '3',
      `floor: durable (vendor fetch + one write with an alarm, a new object per request), ${c} conn.`,
      `${rps(fd.worker.rps)}, p50 ${ms(fd.worker.p50)}`,
      `pass-through ${rps(fp.worker.rps)}`,
      pct(ratio1(fd.worker.rps, fp.worker.rps)),
      '',
      `durability costs ${ms(fd.worker.p50 - fp.worker.p50)} p50; our code ${ms(l.worker.p50 - fd.worker.p50)} more`,
    ]);
    out.push([
      '3',
      `↳ the same write in an object already running, ${c} conn.`,
      `${rps(fr.worker.rps)}, p50 ${ms(fr.worker.p50)}`,
      `durable floor ${rps(fd.worker.rps)}`,
      pct(ratio1(fr.worker.rps, fd.worker.rps)),
      '',
      `context: creating the object costs ${ms(fd.worker.p50 - fr.worker.p50)} p50 (verifications stay one object each)`,
    ]);
    // Runs recorded before the second vendor have no stripe part.
    const sp = o.stripe;
    if (sp) {
      const sg = sp.goals;
      out.push([
        '3',
        `stripe: /api/onboarding-link p50, 1 conn. (the Stripe double behind it)`,
        ms(sp.one.link.worker.p50),
        `/api/ruok, same stack ${ms(sp.one.link.direct.p50)}`,
        `+${ms(sg.addedOverRuokP50)}`,
        '≤ +3 ms over /api/ruok',
        sg.addedOverRuokP50 <= 3 ? 'met' : `missed by ${ms(sg.addedOverRuokP50 - 3)}`,
      ]);
      out.push([
        '3',
        `stripe: ↳ the durable floor making Stripe's call, 1 conn.`,
        ms(sp.one.durable.p50),
        `link route ${ms(sp.one.link.worker.p50)}`,
        '',
        '',
        `our code ${ms(sp.one.link.worker.p50 - sp.one.durable.p50)} over the durable floor`,
      ]);
      out.push([
        '3',
        `stripe: /api/onboarding-link throughput, ${sp.link.connections} conn.`,
        rps(sp.link.worker.rps),
        `durable floor ${rps(sp.durable.worker.rps)}`,
        pct(sg.ofDurableFloor),
        '≥ 70% of the durable floor',
        sg.ofDurableFloor >= 0.7 ? 'met' : `missed by ${round((0.7 - sg.ofDurableFloor) * 100, 1)} points`,
      ]);
      out.push([
        '3',
        `stripe: ↳ with an Idempotency-Key, ${sp.link.connections} conn.`,
        `${rps(sp.linkIdempotent.worker.rps)}, p50 ${ms(sp.linkIdempotent.worker.p50)}`,
        `keyless ${rps(sp.link.worker.rps)}, p50 ${ms(sp.link.worker.p50)}`,
        pct(sg.idempotentOfKeyless),
        '≥ 80% of keyless',
        sg.idempotentOfKeyless >= 0.8 ? 'met' : `missed by ${round((0.8 - sg.idempotentOfKeyless) * 100, 1)} points`,
      ]);
      out.push([
        '3',
        `stripe: /api/onboarding-link vs the Stripe double directly, ${sp.link.connections} conn.`,
        `${rps(sp.link.worker.rps)}, p50 ${ms(sp.link.worker.p50)}`,
        `double direct ${rps(sp.link.direct.rps)}, p50 ${ms(sp.link.direct.p50)}`,
        pct(sp.link.throughputRatio),
        '',
        `context: ${sp.durationS} s per run; the double in node, its store in memory`,
      ]);
    }
    const wd = o.wranglerDev;
    if (wd)
      out.push([
        '3',
        `the same link route under wrangler dev (npm start)`,
        `${rps(wd.worker.rps)}, p50 ${ms(wd.worker.p50)}`,
        `vendor direct ${rps(wd.direct.rps)}`,
        pct(wd.throughputRatio),
        '',
        `context: dev tooling; ${pct(ratio1(wd.worker.rps, l.worker.rps))} of the Miniflare throughput`,
      ]);
  } else if (o) err('3', 'worker overhead', o.error);

  const w = r.items.workerSize;
  if (w && 'gzipBytes' in w) {
    const over = w.gzipBytes - w.budgetGzipBytes;
    const overLocal = w.local.gzipBytes - w.local.budgetGzipBytes;
    out.push([
      '4',
      'production worker bundle, gzip as wrangler deploy counts it (--dry-run --env production)',
      `${bytes(w.gzipBytes)} (${kb(w.gzipBytes)})`,
      `raw ${kb(w.rawBytes)}`,
      '',
      `≤ ${kb(w.budgetGzipBytes)} (budget)`,
      (over > 0 ? `OVER budget by ${bytes(over)}` : `within budget (${bytes(-over)} to spare)`) +
        (w.checkDeployPassed ? '' : '; npm run check:deploy fails'),
    ]);
    out.push([
      '4',
      'local stack worker bundle (sandbox + demo inside), gzip',
      `${bytes(w.local.gzipBytes)} (${kb(w.local.gzipBytes)})`,
      `production ${kb(w.gzipBytes)}`,
      '',
      `≤ ${kb(w.local.budgetGzipBytes)} (budget)`,
      overLocal > 0 ? `OVER budget by ${bytes(overLocal)}` : 'within budget',
    ]);
    const top = w.split
      .slice(0, 4)
      .map((p) => `${p.part} ${pct(p.share)}`)
      .join(', ');
    out.push(['4', 'worker bundle, biggest parts (minified bytes)', top, '', '', '', '']);
  } else if (w) err('4', 'worker bundle', w.error);

  const e = r.items.endToEnd;
  if (e && 'widget' in e) {
    out.push([
      '5',
      `click "Verify my identity" → hosted flow loaded (median of ${e.runs})`,
      ms(e.widget.median),
      `plain fetch + location.assign form ${ms(e.plain.median)}`,
      x(e.ratio),
      '',
      `API call inside it: ${ms(e.widget.api.median)} (plain ${ms(e.plain.api.median)})`,
    ]);
  } else if (e) err('5', 'end to end', e.error);

  if (o && 'scaling' in o) {
    const base = o.scaling[0];
    for (const sc of o.scaling) {
      out.push([
        '6',
        `/api/onboarding-link at ${sc.connections} conn.`,
        `${rps(sc.worker.rps)}, p50 ${ms(sc.worker.p50)}, p99 ${ms(sc.worker.p99)}`,
        `vendor direct ${rps(sc.direct.rps)}, p50 ${ms(sc.direct.p50)}`,
        pct(sc.throughputRatio),
        '',
        base ? `${x(ratio1(sc.worker.rps, base.worker.rps))} the 1-conn. throughput` : '',
      ]);
    }
  }
  const oc = r.items.outcomes;
  if (oc && 'resultFinal' in oc) {
    out.push([
      '7',
      '/api/result, final status (record + a fresh ES256 token)',
      `${rps(oc.resultFinal.rps)}, p50 ${ms(oc.resultFinal.p50)}`,
      `still CHECKING (record only) ${rps(oc.resultChecking.rps)}, p50 ${ms(oc.resultChecking.p50)}`,
      `+${ms(oc.tokenCostP50Ms)} p50`,
      '',
      `JWKS route ${rps(oc.jwks.rps)}, p50 ${ms(oc.jwks.p50)}; ES256 in node: ${oc.signaturesPerSecondNode.toLocaleString('en-US')} signatures/s`,
    ]);
    out.push([
      '7',
      `webhook delivery from the queue (${oc.webhooks.verifications} verifications)`,
      `${oc.webhooks.perSecond} deliveries/s`,
      '',
      '',
      '',
      `all ${oc.webhooks.verifications} verification.completed received in ${oc.webhooks.seconds} s (queue batch timeout 1 s)`,
    ]);
  } else if (oc) err('7', 'trusted outcomes', oc.error);
  out.push(...opsRows(r.items.ops));
  out.push(...failoverRows(r.items.failover));

  const pl = r.items.polling;
  if (pl && 'backoff' in pl) {
    const b = pl.backoff;
    const f = pl.fixed;
    out.push([
      '9',
      `vendor result calls per verification, p50 / p95 / max (${pl.verifications.toLocaleString('en-US')} simulated: ${pl.mix.returned} return, ${pl.mix.phone} finish on the phone, ${pl.mix.abandoned} abandon)`,
      `${b.p50} / ${b.p95} / ${b.max}`,
      `fixed schedule ${f.p50} / ${f.p95} / ${f.max}`,
      x(ratio1(b.perLink, f.perLink)),
      '',
      `per link request ${b.perLink} (fixed ${f.perLink})`,
    ]);
    out.push([
      '9',
      'an abandoned verification (never opened, no one waiting), most calls',
      String(b.abandonedAloneMax),
      `fixed schedule ${f.abandonedAloneMax}`,
      '',
      `≤ ${pl.budget} (budget)`,
      b.abandonedAloneMax <= pl.budget ? 'within' : `OVER by ${b.abandonedAloneMax - pl.budget}`,
    ]);
    out.push([
      '9',
      'seconds from the vendor having an outcome to the worker knowing it, p50 / p95 / max',
      `${b.outcomeLagP50} / ${b.outcomeLagP95} / ${b.outcomeLagMax} s`,
      `fixed schedule ${f.outcomeLagP50} / ${f.outcomeLagP95} / ${f.outcomeLagMax} s`,
      '',
      '',
      'the price of backing off: a phone that finishes while no one waits is found within RESULT_POLL_MAX_SECONDS',
    ]);
  } else if (pl) err('9', 'polling', pl.error);
  return out;
}

const ratio1 = (a: number, b: number) => (b ? round(a / b, 2) : NaN);
