/** The one table: rows built from the results, rendered as text (terminal) and Markdown (README). */
import type { E2eResult } from './e2e';
import type { OverheadResult } from './overhead';
import type { OutcomesResult } from './outcomes';
import { opsRows, type OpsBenchResult } from './ops';
import type { WidgetSizeResult, WorkerSizeResult } from './size';
import type { StartResult } from './start';
import { kb, ms, pct, round } from './lib/stats';

/** One measurement, or why it could not be made. */
export type Outcome<T> = T | { error: string };

/** What `npm run bench` writes (bench/results/*.json). */
export interface BenchResults {
  date: string;
  mode: 'full' | 'quick';
  durationS: number;
  machine: Record<string, unknown>;
  notes: string[];
  items: {
    widgetSize?: Outcome<WidgetSizeResult>;
    widgetStart?: Outcome<StartResult>;
    workerOverhead?: Outcome<OverheadResult>;
    workerSize?: Outcome<WorkerSizeResult>;
    endToEnd?: Outcome<E2eResult>;
    outcomes?: Outcome<OutcomesResult>;
    ops?: Outcome<OpsBenchResult>;
  };
  budgets: { widgetGzip?: boolean; workerGzip?: boolean };
}

export type Row = [item: string, measure: string, value: string, baseline: string, ratio: string, target: string, verdict: string];

export const HEADER: Row = ['#', 'measure', 'this build', 'baseline (same run)', 'ratio', 'target / budget', 'verdict'];

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
    out.push([
      '3',
      `/api/onboarding-link throughput, ${c} conn.`,
      rps(l.worker.rps),
      `vendor direct ${rps(l.direct.rps)}`,
      pct(l.throughputRatio),
      '≥ 70% of direct',
      l.throughputRatio >= 0.7 ? 'met' : `missed by ${round((0.7 - l.throughputRatio) * 100, 1)} points`,
    ]);
    out.push([
      '3',
      `/api/onboarding-link p50, ${c} conn.`,
      ms(l.worker.p50),
      `vendor direct ${ms(l.direct.p50)}`,
      `+${ms(l.addedP50)}`,
      '< +2 ms',
      l.addedP50 < 2 ? 'met' : `missed by ${ms(l.addedP50 - 2)}`,
    ]);
    const one = o.scaling.find((sc) => sc.connections === 1);
    if (one)
      out.push([
        '3',
        `/api/onboarding-link p50, 1 conn. (no queueing)`,
        ms(one.worker.p50),
        `vendor direct ${ms(one.direct.p50)}`,
        `+${ms(one.addedP50)}`,
        '< +2 ms',
        one.addedP50 < 2 ? 'met' : `missed by ${ms(one.addedP50 - 2)}`,
      ]);
    out.push([
      '3',
      `/api/onboarding-link p99, ${c} conn.`,
      ms(l.worker.p99),
      `vendor direct ${ms(l.direct.p99)}`,
      `+${ms(l.addedP99)}`,
      '',
      '',
    ]);
    const li = o.linkIdempotent;
    out.push([
      '3',
      `↳ the same with an Idempotency-Key (as the widget sends)`,
      `${rps(li.worker.rps)}, p50 ${ms(li.worker.p50)}`,
      `vendor direct ${rps(li.direct.rps)}`,
      pct(li.throughputRatio),
      '≥ 70% / < +2 ms',
      `+${ms(li.addedP50)} p50; ${pct(ratio1(li.worker.rps, l.worker.rps))} of the keyless throughput`,
    ]);
    const u = o.ruok;
    out.push([
      '3',
      `/api/ruok throughput (cached 10 s), ${c} conn.`,
      rps(u.worker.rps),
      `vendor direct ${rps(u.direct.rps)}`,
      pct(u.throughputRatio),
      '≥ 70% of direct',
      u.throughputRatio >= 0.7 ? 'met' : `missed by ${round((0.7 - u.throughputRatio) * 100, 1)} points`,
    ]);
    out.push([
      '3',
      `/api/ruok p50 / p99 (cached 10 s)`,
      `${ms(u.worker.p50)} / ${ms(u.worker.p99)}`,
      `vendor direct ${ms(u.direct.p50)} / ${ms(u.direct.p99)}`,
      `+${ms(u.addedP50)}`,
      '< +2 ms',
      u.addedP50 < 2 ? 'met' : `missed by ${ms(u.addedP50 - 2)}`,
    ]);
    const fo = o.floor.ok;
    const fp = o.floor.proxy;
    out.push([
      '3',
      `floor: do-nothing worker, same workerd set-up`,
      `${rps(fo.worker.rps)}, p50 ${ms(fo.worker.p50)}`,
      `vendor ruok ${rps(fo.direct.rps)}`,
      pct(fo.throughputRatio),
      '',
      `context: the local stack alone (+${ms(fo.addedP50)} p50)`,
    ]);
    out.push([
      '3',
      `floor: pass-through worker (one vendor fetch)`,
      `${rps(fp.worker.rps)}, p50 ${ms(fp.worker.p50)}`,
      `vendor direct ${rps(fp.direct.rps)}`,
      pct(fp.throughputRatio),
      '',
      `context: the least any proxy costs here (+${ms(fp.addedP50)} p50)`,
    ]);
    const wd = o.wranglerDev;
    out.push([
      '3',
      `the same link route under wrangler dev (npm start)`,
      `${rps(wd.worker.rps)}, p50 ${ms(wd.worker.p50)}`,
      `vendor direct ${rps(wd.direct.rps)}`,
      pct(wd.throughputRatio),
      '',
      `context: dev tooling; ${pct(ratio1(wd.worker.rps, l.worker.rps))} of the Miniflare throughput`,
    ]);
    out.push([
      '3',
      `our worker vs the pass-through floor`,
      rps(l.worker.rps),
      `pass-through ${rps(fp.worker.rps)}`,
      pct(ratio1(l.worker.rps, fp.worker.rps)),
      '',
      `our code adds ${ms(l.worker.p50 - fp.worker.p50)} at p50`,
    ]);
    if (![l, li, u, fo, fp, wd].every((cmp) => cmp.clean))
      out.push(['3', 'load runs with non-2xx answers or socket errors', 'yes', '', '', '', 'see JSON: figures suspect']);
  } else if (o) err('3', 'worker overhead', o.error);

  const w = r.items.workerSize;
  if (w && 'gzipBytes' in w) {
    const over = w.gzipBytes - w.budgetGzipBytes;
    const aim = w.gzipBytes - w.aimGzipBytes;
    out.push([
      '4',
      'worker bundle (wrangler deploy --dry-run), gzip',
      `${bytes(w.gzipBytes)} (${kb(w.gzipBytes)})`,
      `raw ${kb(w.rawBytes)}`,
      '',
      `≤ ${kb(w.budgetGzipBytes)} (budget); aim ${kb(w.aimGzipBytes)}`,
      (over > 0 ? `OVER budget by ${bytes(over)}` : 'within budget') + (aim > 0 ? `; aim missed by ${kb(aim)}` : '; aim met'),
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
  return out;
}

const ratio1 = (a: number, b: number) => (b ? round(a / b, 2) : NaN);

export function textTable(rs: Row[]): string {
  const all = [HEADER, ...rs];
  const widths = HEADER.map((_, i) => Math.min(60, Math.max(...all.map((r) => r[i]!.length))));
  const line = (r: Row) =>
    r
      .map((c, i) => (c.length > widths[i]! ? c.slice(0, widths[i]! - 1) + '…' : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(HEADER), widths.map((w) => '-'.repeat(w)).join('  '), ...rs.map(line)].join('\n');
}

export function markdownTable(rs: Row[]): string {
  const esc = (c: string) => c.replace(/\|/g, '\\|');
  return [HEADER, HEADER.map(() => '---') as unknown as Row, ...rs].map((r) => `| ${r.map(esc).join(' | ')} |`).join('\n');
}
