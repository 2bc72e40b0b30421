/**
 * What the console shows, computed from the rollups: the funnel per partner
 * (the JSON of `GET /ops/api/funnel`, docs/operations.md's shape), and for the page
 * the same plus p90, vendor calls by outcome with p50/p95 latency, webhook
 * success and the funnel per day.
 */
import {
  DAY_MS,
  readCounts,
  readDays,
  readValues,
  readVendorDeliveries,
  type CountRow,
  type Range,
  type ValueRow,
  type VendorDeliveryRow,
} from './store';
import { operationName } from './events';

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
  /** Links the next vendor made because the first one faulted (failover before start). */
  failovers: number;
  /** Links made and final statuses per vendor (counted since the per-vendor facets; see funnelByVendor). */
  byVendor: Record<string, { linkCreated: number; final: number }>;
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
    failovers: sum(counts, 'link.failover'),
    byVendor: funnelByVendor(counts),
  };
}

/**
 * Links and finals per vendor. Counts from before the per-vendor facets
 * existed (a link or a final with no `.vendor` row in the same hour) cannot
 * be told apart: they are left out here, and in the all-vendor funnel.
 */
function funnelByVendor(counts: CountRow[]): PartnerFunnel['byVendor'] {
  const out: PartnerFunnel['byVendor'] = {};
  const at = (v: string) => (out[v] ??= { linkCreated: 0, final: 0 });
  for (const r of counts) {
    if (r.name === 'link.created.vendor') at(r.dim).linkCreated += r.n;
    if (r.name === 'verification.final.vendor') at(r.dim).final += r.n;
  }
  return out;
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

/** One vendor on the console: its funnel, its failovers, its calls (its health) and its verifications' webhook deliveries. */
export interface VendorSummary {
  vendor: string;
  linkCreated: number;
  final: number;
  /** Links it did not make because it faulted or was known down: the next vendor made them. */
  failedOverFrom: number;
  /** Links it made for another vendor that faulted. */
  failedOverTo: number;
  /** Why it was passed over (timeout, network, error, busy, known-down). */
  failoverCauses: Record<string, number>;
  calls: VendorLine[];
  /** Its share of calls answered properly (null: no calls). */
  okShare: number | null;
  /** Its verifications' webhook deliveries by state (a row from before migrations/0005 is idv's). */
  deliveries: Record<string, number>;
}

/** `GET /ops/api/vendors`: the range, and each vendor as the page shows it. */
export interface VendorsAnswer {
  from: string;
  to: string;
  vendors: VendorSummary[];
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
  /** The same, and the funnel, failovers and webhook deliveries, per vendor. */
  vendors: VendorSummary[];
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

/**
 * Vendor calls per operation from rows named `name` (`vendor.call`, or
 * `vendor.call.vendor` with the vendor first in `dim`), an operation's former
 * name read as its new one (`operationName`).
 */
export function vendorLines(counts: CountRow[], values: ValueRow[], name: string, metric: string, vendor?: string): VendorLine[] {
  const prefix = vendor === undefined ? '' : `${vendor} `;
  const lines = new Map<string, { byOutcome: VendorLine['byOutcome']; dist: Map<number, number> }>();
  const line = (op: string) => {
    let l = lines.get(op);
    if (!l) {
      l = { byOutcome: Object.fromEntries(VENDOR_OUTCOMES.map((o) => [o, 0])) as VendorLine['byOutcome'], dist: new Map() };
      lines.set(op, l);
    }
    return l;
  };
  for (const r of counts) {
    if (r.name !== name || !r.dim.startsWith(prefix)) continue;
    const [op = '', outcome = ''] = r.dim.slice(prefix.length).split(' ');
    const l = line(operationName(op));
    if ((VENDOR_OUTCOMES as readonly string[]).includes(outcome)) l.byOutcome[outcome as (typeof VENDOR_OUTCOMES)[number]] += r.n;
  }
  for (const r of values) {
    if (r.metric !== metric || !r.dim.startsWith(prefix)) continue;
    const l = line(operationName(r.dim.slice(prefix.length).split(' ')[0] ?? ''));
    l.dist.set(r.bucket, (l.dist.get(r.bucket) ?? 0) + r.n);
  }
  return [...lines]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([operation, l]) => ({
      operation,
      calls: Object.values(l.byOutcome).reduce((s, n) => s + n, 0),
      byOutcome: l.byOutcome,
      p50Ms: quantile(l.dist, 0.5),
      p95Ms: quantile(l.dist, 0.95),
    }));
}

/** Each vendor seen in the range: links, finals, failovers, calls and deliveries (no personal data: counts only). */
export function perVendor(counts: CountRow[], values: ValueRow[], deliveries: VendorDeliveryRow[]): VendorSummary[] {
  const seen = new Set<string>();
  for (const r of counts) {
    if (r.name === 'link.created.vendor' || r.name === 'verification.final.vendor') seen.add(r.dim);
    if (r.name === 'vendor.call.vendor' || r.name === 'link.failover' || r.name === 'link.failover.cause')
      for (const v of r.dim.split(' ').slice(0, r.name === 'link.failover' ? 2 : 1)) seen.add(v);
  }
  for (const d of deliveries) seen.add(d.vendor);
  const byVendor = funnelByVendor(counts);
  return [...seen].sort().map((vendor) => {
    const calls = vendorLines(counts, values, 'vendor.call.vendor', 'vendor.ms.vendor', vendor);
    const total = calls.reduce((s, l) => s + l.calls, 0);
    const ok = calls.reduce((s, l) => s + l.byOutcome.ok + l.byOutcome['4xx'], 0);
    const failoverCauses: Record<string, number> = {};
    for (const r of counts) {
      if (r.name !== 'link.failover.cause' || !r.dim.startsWith(`${vendor} `)) continue;
      const cause = r.dim.slice(vendor.length + 1);
      failoverCauses[cause] = (failoverCauses[cause] ?? 0) + r.n;
    }
    const pair = (i: 0 | 1) =>
      counts.filter((r) => r.name === 'link.failover' && r.dim.split(' ')[i] === vendor).reduce((s, r) => s + r.n, 0);
    return {
      vendor,
      linkCreated: byVendor[vendor]?.linkCreated ?? 0,
      final: byVendor[vendor]?.final ?? 0,
      failedOverFrom: pair(0),
      failedOverTo: pair(1),
      failoverCauses,
      calls,
      // A 4xx is the vendor answering (about our request): up, for its health.
      okShare: total ? ok / total : null,
      deliveries: Object.fromEntries(deliveries.filter((d) => d.vendor === vendor).map((d) => [d.state, d.n])),
    };
  });
}

export async function summary(db: D1Database, range: Range): Promise<Summary> {
  const [counts, values, dayRows, deliveries] = await Promise.all([
    readCounts(db, range),
    readValues(db, range),
    readDays(db, range),
    readVendorDeliveries(db, range),
  ]);
  const f = partnerFunnel(range.partner ?? 'all', counts, values);
  const vendor = vendorLines(counts, values, 'vendor.call', 'vendor.ms');
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
    vendors: perVendor(counts, values, deliveries),
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
