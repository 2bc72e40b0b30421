/** The one table of `npm run bench`: its rows' shape, rendered as text (terminal) and Markdown (docs/benchmarks.md). */
export type Row = [item: string, measure: string, value: string, baseline: string, ratio: string, target: string, verdict: string];

export const HEADER: Row = ['#', 'measure', 'this build', 'baseline (same run)', 'ratio', 'target / budget', 'verdict'];

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
