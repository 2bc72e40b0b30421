/**
 * What the console shows, computed from the rollups: the funnel per partner
 * (the JSON of `GET /ops/api/funnel`, docs/operations.md's shape), and for the page
 * the same plus p90, vendor calls by outcome with p50/p95 latency, webhook
 * success and the funnel per day.
 */
import { DAY_MS, readCounts, readDays, readValues, type CountRow, type Range, type ValueRow } from './store';

export interface PartnerFunnel {
  partnerId: string;
  shown: number;
  linkCreated: number;
  linkRefused: number;
  returned: number;
  final: number;
  expired: number;
  canceled: number;
  byCheckStatus: Record<string, number>;
  medianSecondsToFinal: number | null;
}

export interface FunnelAnswer {
  from: string;
  to: string;
  partners: PartnerFunnel[];
}

/** The value at quantile q (nearest rank) of a bucketed distribution; null when it is empty. */
export function quantile(buckets: Map<number, number>, q: number): number | null {
  let total = 0;
  for (const n of buckets.values()) total += n;
  if (!total) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const b of [...buckets.keys()].sort((x, y) => x - y)) {
    seen += buckets.get(b)!;
    if (seen >= rank) return b;
  }
  return null;
}

const sum = (rows: CountRow[], name: string, dim?: string) =>
  rows.filter((r) => r.name === name && (dim === undefined || r.dim === dim)).reduce((s, r) => s + r.n, 0);

function distribution(rows: ValueRow[], metric: string, dim?: (d: string) => boolean): Map<number, number> {
  const m = new Map<number, number>();
  for (const r of rows) if (r.metric === metric && (!dim || dim(r.dim))) m.set(r.bucket, (m.get(r.bucket) ?? 0) + r.n);
  return m;
}

function partnerFunnel(partnerId: string, counts: CountRow[], values: ValueRow[]): PartnerFunnel {
  const byCheckStatus: Record<string, number> = {};
  for (const r of counts) if (r.name === 'verification.final') byCheckStatus[r.dim] = (byCheckStatus[r.dim] ?? 0) + r.n;
  return {
    partnerId,
    shown: sum(counts, 'widget.shown'),
    linkCreated: sum(counts, 'link.created'),
    linkRefused: sum(counts, 'link.refused'),
    returned: sum(counts, 'flow.returned'),
    final: sum(counts, 'verification.final'),
    expired: sum(counts, 'verification.expired'),
    canceled: sum(counts, 'verification.canceled'),
    byCheckStatus,
    medianSecondsToFinal: quantile(distribution(values, 'final.seconds'), 0.5),
  };
}

function byPartner<T extends { partner_id: string }>(rows: T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) m.set(r.partner_id, [...(m.get(r.partner_id) ?? []), r]);
  return m;
}

export async function funnel(db: D1Database, range: Range): Promise<FunnelAnswer> {
  const [counts, values] = await Promise.all([readCounts(db, range), readValues(db, range)]);
  const c = byPartner(counts);
  const v = byPartner(values);
  const ids = [...new Set([...c.keys(), ...v.keys()])].sort();
  return {
    from: new Date(range.from).toISOString(),
    to: new Date(range.to).toISOString(),
    partners: ids.map((id) => partnerFunnel(id, c.get(id) ?? [], v.get(id) ?? [])),
  };
}

export const VENDOR_OUTCOMES = ['ok', '4xx', '5xx', 'timeout', 'network'] as const;

export interface VendorLine {
  operation: string;
  calls: number;
  byOutcome: Record<(typeof VENDOR_OUTCOMES)[number], number>;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface DayLine {
  day: string;
  shown: number;
  linkCreated: number;
  returned: number;
  final: number;
}

/** Everything the page shows for one partner (or all of them together). */
export interface Summary {
  funnel: PartnerFunnel;
  p90SecondsToFinal: number | null;
  refusedFields: [string, number][];
  vendor: VendorLine[];
  webhooks: {
    attempts: number;
    delivered: number;
    retried: number;
    dead: number;
    gone: number;
    p50Ms: number | null;
    p95Ms: number | null;
  };
  days: DayLine[];
}

export async function summary(db: D1Database, range: Range): Promise<Summary> {
  const [counts, values, dayRows] = await Promise.all([readCounts(db, range), readValues(db, range), readDays(db, range)]);
  const f = partnerFunnel(range.partner ?? 'all', counts, values);
  const ops = new Set<string>();
  for (const r of counts) if (r.name === 'vendor.call') ops.add(r.dim.split(' ')[0]!);
  const vendor: VendorLine[] = [...ops].sort().map((operation) => {
    const byOutcome = Object.fromEntries(
      VENDOR_OUTCOMES.map((o) => [o, sum(counts, 'vendor.call', `${operation} ${o}`)]),
    ) as VendorLine['byOutcome'];
    const dist = distribution(values, 'vendor.ms', (d) => d.startsWith(`${operation} `));
    return {
      operation,
      calls: Object.values(byOutcome).reduce((s, n) => s + n, 0),
      byOutcome,
      p50Ms: quantile(dist, 0.5),
      p95Ms: quantile(dist, 0.95),
    };
  });
  const hookDist = distribution(values, 'webhook.ms');
  const refusedFields = counts
    .filter((r) => r.name === 'link.refused.field')
    .reduce((m, r) => m.set(r.dim, (m.get(r.dim) ?? 0) + r.n), new Map<string, number>());
  // Every day of the range, so a quiet day shows as zero rather than missing.
  const days: DayLine[] = [];
  const firstDay = Math.floor(range.from / DAY_MS) * DAY_MS;
  for (let d = firstDay; d < range.to; d += DAY_MS) {
    const rows = dayRows.filter((r) => r.day * 1000 === d);
    const n = (name: string) => rows.filter((r) => r.name === name).reduce((s, r) => s + r.n, 0);
    days.push({
      day: new Date(d).toISOString().slice(0, 10),
      shown: n('widget.shown'),
      linkCreated: n('link.created'),
      returned: n('flow.returned'),
      final: n('verification.final'),
    });
  }
  return {
    funnel: f,
    p90SecondsToFinal: quantile(distribution(values, 'final.seconds'), 0.9),
    refusedFields: [...refusedFields].sort((a, b) => b[1] - a[1]),
    vendor,
    webhooks: {
      attempts: sum(counts, 'webhook.attempt'),
      delivered: sum(counts, 'webhook.attempt', 'delivered'),
      retried: sum(counts, 'webhook.attempt', 'retry'),
      dead: sum(counts, 'webhook.attempt', 'dead'),
      gone: sum(counts, 'webhook.attempt', 'gone'),
      p50Ms: quantile(hookDist, 0.5),
      p95Ms: quantile(hookDist, 0.95),
    },
    days,
  };
}
