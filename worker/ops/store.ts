/**
 * The operator console's tables in D1 (migrations/0002_ops.sql): the queue
 * consumer's writes (hourly rollups, webhook attempts, exactly once per event
 * id), the scheduled clean-up, and the reads behind /ops.
 */
import type { OpsMessage } from './events';

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;
/** Webhook attempts and deliveries are kept this long. */
export const ATTEMPTS_KEPT_MS = 30 * DAY_MS;
/** Event ids are remembered this long: longer than a queue keeps a message (at most 14 days). */
export const SEEN_KEPT_MS = 15 * DAY_MS;
/** Rollups are kept 13 months. */
export const ROLLUP_MONTHS = 13;

/** The start of the hour (UTC) of `at`, in epoch seconds. */
export const hourOf = (at: number) => Math.floor(at / HOUR_MS) * 3600;

/** A value's bucket: itself below 100, else rounded down to two significant digits (at most 10% low). */
export function bucket(value: number): number {
  const v = Math.max(0, Math.round(value));
  if (v < 100) return v;
  const p = 10 ** (Math.floor(Math.log10(v)) - 1);
  return Math.floor(v / p) * p;
}

/** The rollup rows one event adds to: counts (name, dim) and values (metric, dim, value). */
export function rollupsOf(m: OpsMessage): { counts: [string, string][]; values: [string, string, number][] } {
  switch (m.type) {
    case 'widget.shown':
    case 'handoff.opened':
    case 'verification.canceled':
      return { counts: [[m.type, '']], values: [] };
    // Per vendor beside the all-vendor counts (an event from before there was a choice is idv's).
    case 'link.created':
      return {
        counts: [
          [m.type, m.channel],
          ['link.created.vendor', m.vendor ?? 'idv'],
        ],
        values: [],
      };
    case 'link.failover':
      return {
        counts: [
          [m.type, `${m.from} ${m.to}`],
          ['link.failover.cause', `${m.from} ${m.cause}`],
        ],
        values: [],
      };
    case 'link.refused':
      return { counts: [[m.type, m.errorCode], ...m.fields.map((f): [string, string] => ['link.refused.field', f])], values: [] };
    case 'flow.returned':
      return { counts: [[m.type, m.outcome]], values: [] };
    case 'verification.final':
      return {
        counts: [
          [m.type, m.checkStatus],
          ['verification.final.vendor', m.vendor ?? 'idv'],
        ],
        values: [['final.seconds', '', m.secondsSinceLink]],
      };
    case 'verification.expired':
      return { counts: [[m.type, m.reason]], values: [] };
    case 'vendor.call': {
      const dim = `${m.operation} ${m.outcome}`;
      const perVendor = `${m.vendor ?? 'idv'} ${dim}`;
      return {
        counts: [
          [m.type, dim],
          ['vendor.call.vendor', perVendor],
        ],
        values: [
          ['vendor.ms', dim, m.ms],
          ['vendor.ms.vendor', perVendor, m.ms],
        ],
      };
    }
    case 'webhook.attempt':
      return { counts: [[m.type, m.result]], values: [['webhook.ms', m.result, m.ms]] };
  }
}

const NOT_SEEN = 'NOT EXISTS (SELECT 1 FROM ops_seen WHERE event_id = ?)';

/**
 * The statements that count one event, each guarded by "not counted yet",
 * then the mark that it is counted. Run in one D1 batch (a transaction), a
 * message delivered twice, in one batch or two, adds nothing the second time.
 */
export function statementsFor(db: D1Database, m: OpsMessage): D1PreparedStatement[] {
  const hour = hourOf(m.at);
  const out: D1PreparedStatement[] = [];
  const { counts, values } = rollupsOf(m);
  for (const [name, dim] of counts) {
    out.push(
      db
        .prepare(
          `INSERT INTO ops_counts (partner_id, hour, name, dim, n) SELECT ?, ?, ?, ?, 1 WHERE ${NOT_SEEN}
           ON CONFLICT (partner_id, hour, name, dim) DO UPDATE SET n = n + 1`,
        )
        .bind(m.partnerId, hour, name, dim, m.id),
    );
  }
  for (const [metric, dim, value] of values) {
    out.push(
      db
        .prepare(
          `INSERT INTO ops_values (partner_id, hour, metric, dim, bucket, n) SELECT ?, ?, ?, ?, ?, 1 WHERE ${NOT_SEEN}
           ON CONFLICT (partner_id, hour, metric, dim, bucket) DO UPDATE SET n = n + 1`,
        )
        .bind(m.partnerId, hour, metric, dim, bucket(value), m.id),
    );
  }
  // The delivery's state (ops_webhook_deliveries) is written by the verification's outbox (writeDelivery), not from here:
  // an attempt's event can be lost or counted late, the outbox cannot.
  if (m.type === 'webhook.attempt') {
    out.push(
      db
        .prepare(
          `INSERT INTO ops_webhook_attempts (event_id, partner_id, verification_id, type, attempt, status, failure, ms, result, at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING`,
        )
        .bind(m.id, m.partnerId, m.verificationId, m.webhookType, m.attempt, m.status ?? null, m.failure ?? null, m.ms, m.result, m.at),
    );
  }
  out.push(db.prepare('INSERT INTO ops_seen (event_id, at) VALUES (?, ?) ON CONFLICT (event_id) DO NOTHING').bind(m.id, m.at));
  return out;
}

/** Counts a batch of events in one transaction. */
export async function record(db: D1Database, messages: OpsMessage[]): Promise<void> {
  if (!messages.length) return;
  await db.batch(messages.flatMap((m) => statementsFor(db, m)));
}

/** The epoch ms `months` calendar months before `now` (UTC). */
export function monthsBefore(now: number, months: number): number {
  const d = new Date(now);
  d.setUTCMonth(d.getUTCMonth() - months);
  return d.getTime();
}

/** The scheduled clean-up: rollups older than 13 months, attempts older than 30 days, old event ids. */
export async function cleanUp(db: D1Database, now: number): Promise<{ rollups: number; attempts: number; seen: number }> {
  const rollupHour = hourOf(monthsBefore(now, ROLLUP_MONTHS));
  const attemptsBefore = now - ATTEMPTS_KEPT_MS;
  const [counts, values, attempts, deliveries, seen] = await db.batch([
    db.prepare('DELETE FROM ops_counts WHERE hour < ?').bind(rollupHour),
    db.prepare('DELETE FROM ops_values WHERE hour < ?').bind(rollupHour),
    db.prepare('DELETE FROM ops_webhook_attempts WHERE at < ?').bind(attemptsBefore),
    db.prepare('DELETE FROM ops_webhook_deliveries WHERE last_attempt_at < ?').bind(attemptsBefore),
    db.prepare('DELETE FROM ops_seen WHERE at < ?').bind(now - SEEN_KEPT_MS),
  ]);
  const changes = (r: { meta: { changes?: number } } | undefined) => r?.meta.changes ?? 0;
  return {
    rollups: changes(counts) + changes(values),
    attempts: changes(attempts) + changes(deliveries),
    seen: changes(seen),
  };
}

// ---- reads ----

export interface Range {
  from: number;
  to: number;
  partner?: string;
}

const rangeWhere = (r: Range) => ({
  sql: `hour >= ? AND hour < ?${r.partner ? ' AND partner_id = ?' : ''}`,
  args: [hourOf(r.from), Math.ceil(r.to / HOUR_MS) * 3600, ...(r.partner ? [r.partner] : [])] as (string | number)[],
});

export interface CountRow {
  partner_id: string;
  name: string;
  dim: string;
  n: number;
}
export interface ValueRow {
  partner_id: string;
  metric: string;
  dim: string;
  bucket: number;
  n: number;
}
export interface DayRow {
  partner_id: string;
  day: number;
  name: string;
  n: number;
}

export async function readCounts(db: D1Database, r: Range): Promise<CountRow[]> {
  const w = rangeWhere(r);
  const { results } = await db
    .prepare(`SELECT partner_id, name, dim, SUM(n) AS n FROM ops_counts WHERE ${w.sql} GROUP BY partner_id, name, dim`)
    .bind(...w.args)
    .all<CountRow>();
  return results;
}

export async function readValues(db: D1Database, r: Range): Promise<ValueRow[]> {
  const w = rangeWhere(r);
  const { results } = await db
    .prepare(`SELECT partner_id, metric, dim, bucket, SUM(n) AS n FROM ops_values WHERE ${w.sql} GROUP BY partner_id, metric, dim, bucket`)
    .bind(...w.args)
    .all<ValueRow>();
  return results;
}

/** Funnel counts per UTC day (for the chart). */
export async function readDays(db: D1Database, r: Range): Promise<DayRow[]> {
  const w = rangeWhere(r);
  const { results } = await db
    .prepare(
      `SELECT partner_id, (hour / 86400) * 86400 AS day, name, SUM(n) AS n FROM ops_counts
       WHERE ${w.sql} AND name IN ('widget.shown', 'link.created', 'flow.returned', 'verification.final')
       GROUP BY partner_id, day, name ORDER BY day`,
    )
    .bind(...w.args)
    .all<DayRow>();
  return results;
}

export type DeliveryState = 'queued' | 'delivered' | 'gone' | 'failed' | 'dead' | 'none';
/** undelivered: queued, failed or dead; failed: failed or dead. */
export type DeliveryFilter = 'dead' | 'failed' | 'undelivered' | 'all';

/** One event's delivery as its verification's outbox last left it (one row per verification and event type). */
export interface DeliveryRow {
  verificationId: string;
  type: string;
  partnerId: string;
  state: DeliveryState;
  attempts: number;
  lastStatus?: number;
  lastFailure?: string;
  /** The last attempt's time, or when the event was made. */
  at: number;
}

/** Written by the verification's Durable Object on every change of its outbox (the console's list of deliveries). */
export async function writeDelivery(db: D1Database, r: DeliveryRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO ops_webhook_deliveries (verification_id, type, partner_id, state, attempts, last_status, last_failure, last_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (verification_id, type) DO UPDATE SET state = excluded.state, attempts = excluded.attempts,
         last_status = excluded.last_status, last_failure = excluded.last_failure, last_attempt_at = excluded.last_attempt_at`,
    )
    .bind(r.verificationId, r.type, r.partnerId, r.state, r.attempts, r.lastStatus ?? null, r.lastFailure ?? null, r.at)
    .run();
}

/** A verification forgotten (its retention ended): what it still owed is dead. */
export async function forgetDeliveries(db: D1Database, verificationId: string): Promise<void> {
  await db
    .prepare(`UPDATE ops_webhook_deliveries SET state = 'dead' WHERE verification_id = ? AND state IN ('queued', 'failed')`)
    .bind(verificationId)
    .run();
}

export interface Delivery {
  verificationId: string;
  partnerId: string;
  type: string;
  state: DeliveryState;
  attempts: number;
  lastResponseStatus: number | null;
  lastAttemptAt: string;
  lastFailure?: string;
}

/**
 * Webhook deliveries, newest first: `dead` (no attempt left), `failed` (the
 * last attempt failed: dead, or waiting for its next attempt), `all`.
 */
export async function readDeliveries(db: D1Database, state: DeliveryFilter, partner?: string, limit = 100): Promise<Delivery[]> {
  const states =
    state === 'dead'
      ? ['dead']
      : state === 'failed'
        ? ['dead', 'failed']
        : state === 'undelivered'
          ? ['queued', 'failed', 'dead']
          : ['queued', 'delivered', 'gone', 'failed', 'dead'];
  const { results } = await db
    .prepare(
      `SELECT verification_id, partner_id, type, state, attempts, last_status, last_failure, last_attempt_at FROM ops_webhook_deliveries
       WHERE state IN (${states.map(() => '?').join(', ')})${partner ? ' AND partner_id = ?' : ''}
       ORDER BY last_attempt_at DESC LIMIT ?`,
    )
    .bind(...states, ...(partner ? [partner] : []), limit)
    .all<{
      verification_id: string;
      partner_id: string;
      type: string;
      state: DeliveryState;
      attempts: number;
      last_status: number | null;
      last_failure: string | null;
      last_attempt_at: number;
    }>();
  return results.map((r) => ({
    verificationId: r.verification_id,
    partnerId: r.partner_id,
    type: r.type,
    state: r.state,
    attempts: r.attempts,
    lastResponseStatus: r.last_status,
    lastAttemptAt: new Date(r.last_attempt_at).toISOString(),
    ...(r.last_failure ? { lastFailure: r.last_failure } : {}),
  }));
}

/** How many of a vendor's verifications' webhook deliveries are in each state. */
export interface VendorDeliveryRow {
  vendor: string;
  state: DeliveryState;
  n: number;
}

/**
 * Webhook deliveries per vendor and state, by their last attempt's time in
 * the range: the verification's vendor from the index (migrations/0005; a
 * delivery whose verification is forgotten, or a row from before, is idv's).
 */
export async function readVendorDeliveries(db: D1Database, r: Range): Promise<VendorDeliveryRow[]> {
  const { results } = await db
    .prepare(
      `SELECT COALESCE(v.vendor, 'idv') AS vendor, d.state AS state, COUNT(*) AS n
       FROM ops_webhook_deliveries d LEFT JOIN verifications v ON v.id = d.verification_id
       WHERE d.last_attempt_at >= ? AND d.last_attempt_at < ?${r.partner ? ' AND d.partner_id = ?' : ''}
       GROUP BY 1, 2 ORDER BY 1, 2`,
    )
    .bind(r.from, r.to, ...(r.partner ? [r.partner] : []))
    .all<VendorDeliveryRow>();
  return results;
}

/** Partners with any count, for the console's partner list. */
export async function readPartners(db: D1Database, since: number): Promise<string[]> {
  const { results } = await db
    .prepare('SELECT DISTINCT partner_id FROM ops_counts WHERE hour >= ? ORDER BY partner_id')
    .bind(hourOf(since))
    .all<{ partner_id: string }>();
  return results.map((r) => r.partner_id);
}
