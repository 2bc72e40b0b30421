/**
 * Two benchmark runs side by side: the figures that carry a target or a
 * budget, and the ratios, from two bench/results/*.json files.
 *
 *   node --import tsx bench/compare.ts bench/results/<older>.json [bench/results/latest.json]
 */
import { readFileSync } from 'node:fs';
import type { BenchResults } from './types';

type Pick = [label: string, get: (r: BenchResults) => number | undefined, unit: string];

const ok = <T extends object>(x: T | { error: string } | undefined): T | undefined => (x && !('error' in x) ? x : undefined);

const picks: Pick[] = [
  ['1 widget gzip', (r) => ok(r.items.widgetSize)?.widget.gzipBytes, 'B'],
  ['1 widget gzip / minimal', (r) => ok(r.items.widgetSize)?.ratioGzip, '×'],
  ['2 widget start', (r) => ok(r.items.widgetStart)?.widget.median, 'ms'],
  ['2 widget start / minimal', (r) => ok(r.items.widgetStart)?.ratio, '×'],
  ['3 link throughput / direct', (r) => ok(r.items.workerOverhead)?.link.throughputRatio, '×'],
  ['3 link added p50, 8 conn.', (r) => ok(r.items.workerOverhead)?.link.addedP50, 'ms'],
  ['3 link added p50, 1 conn.', (r) => ok(r.items.workerOverhead)?.scaling.find((s) => s.connections === 1)?.addedP50, 'ms'],
  ['3 ruok throughput / direct', (r) => ok(r.items.workerOverhead)?.ruok.throughputRatio, '×'],
  [
    '3 link / pass-through floor',
    (r) => {
      const o = ok(r.items.workerOverhead);
      return o ? Math.round((o.link.worker.rps / o.floor.proxy.worker.rps) * 1000) / 1000 : undefined;
    },
    '×',
  ],
  ['4 worker gzip', (r) => ok(r.items.workerSize)?.gzipBytes, 'B'],
  ['5 end to end / plain form', (r) => ok(r.items.endToEnd)?.ratio, '×'],
  ...[1, 8, 32, 128].map((c): Pick => [
    `6 link req/s at ${c} conn.`,
    (r) => ok(r.items.workerOverhead)?.scaling.find((s) => s.connections === c)?.worker.rps,
    'req/s',
  ]),
];

const [a, b = 'bench/results/latest.json'] = process.argv.slice(2);
if (!a) {
  console.error('usage: node --import tsx bench/compare.ts <older.json> [newer.json]');
  process.exit(2);
}
const A = JSON.parse(readFileSync(a, 'utf8')) as BenchResults;
const B = JSON.parse(readFileSync(b, 'utf8')) as BenchResults;
const fmt = (x: number | undefined) => (x === undefined ? '—' : String(x));
const rows = picks.map(([label, get, unit]) => {
  const x = get(A);
  const y = get(B);
  const change = x !== undefined && y !== undefined && x !== 0 ? `${y >= x ? '+' : ''}${(((y - x) / x) * 100).toFixed(1)} %` : '';
  return [label, `${fmt(x)} ${unit}`, `${fmt(y)} ${unit}`, change];
});
const head = ['', A.date.slice(0, 16), B.date.slice(0, 16), 'change'];
const w = head.map((_, i) => Math.max(...[head, ...rows].map((r) => r[i]!.length)));
for (const r of [head, ...rows]) console.log(r.map((c, i) => c.padEnd(w[i]!)).join('  '));
console.log(
  `\nload average ${A.machine.loadAvg1mStart}→${A.machine.loadAvg1mEnd} vs ${B.machine.loadAvg1mStart}→${B.machine.loadAvg1mEnd}; compare ratios, not milliseconds, across runs.`,
);
