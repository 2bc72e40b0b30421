/**
 * The verification index in D1 (binding DB, `migrations/`): one row per
 * verification, per partner, for `GET /v1/verifications` and the console.
 * The verification's Durable Object writes its row on every state change and
 * deletes it when the verification is forgotten. Nothing personal: ids,
 * statuses, times and the partner's own `customerRef` (gone after a redaction).
 */
import type { Verification } from './verification';
import { lifecycle } from './lifecycle';

export interface IndexRow {
  id: string;
  partner_id: string;
  customer_ref: string | null;
  customer_ref_source: string;
  status: string;
  check_status: string | null;
  livemode: number;
  created_at: number;
  link_created_at: number | null;
  final_at: number | null;
  ended_at: number | null;
  expires_at: number;
  redacted: number;
  updated_at: number;
}

export function indexRow(v: Verification, livemode: boolean, now: number): IndexRow {
  const linked = v.entityId !== undefined || v.linkCreatedAt !== undefined;
  return {
    id: v.id,
    partner_id: v.partnerId,
    customer_ref: v.customerRef ?? null,
    customer_ref_source: v.customerRefSource ?? 'page',
    status: lifecycle(v),
    check_status: linked ? v.status : null,
    livemode: livemode ? 1 : 0,
    created_at: v.createdAt,
    link_created_at: v.linkCreatedAt ?? (v.entityId !== undefined ? v.createdAt : null),
    final_at: v.finalAt ?? null,
    ended_at: v.canceledAt ?? v.finalAt ?? v.expiredAt ?? null,
    expires_at: v.deadline,
    redacted: v.redactedAt !== undefined ? 1 : 0,
    updated_at: now,
  };
}

/** What a row says, to compare before writing (only a change is written). */
export const rowKey = (r: IndexRow) => JSON.stringify({ ...r, updated_at: 0 });

const COLUMNS = [
  'id',
  'partner_id',
  'customer_ref',
  'customer_ref_source',
  'status',
  'check_status',
  'livemode',
  'created_at',
  'link_created_at',
  'final_at',
  'ended_at',
  'expires_at',
  'redacted',
  'updated_at',
] as const satisfies readonly (keyof IndexRow)[];

export async function writeIndex(db: D1Database, row: IndexRow): Promise<void> {
  const updates = COLUMNS.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`);
  await db
    .prepare(
      `INSERT INTO verifications (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (id) DO UPDATE SET ${updates.join(', ')}`,
    )
    .bind(...COLUMNS.map((c) => row[c]))
    .run();
}

export async function deleteIndex(db: D1Database, id: string): Promise<void> {
  await db.prepare('DELETE FROM verifications WHERE id = ?').bind(id).run();
}

export interface ListFilter {
  customerRef?: string;
  /** Rows whose reference this side set (`server` or `page`); absent: either. */
  customerRefSource?: 'server' | 'page';
  status?: string;
  /** Rows older than this id (the previous page's last). */
  cursor?: string;
  limit: number;
}

/** A partner's rows, newest first (ids are ULIDs: they sort by creation time). */
export async function listIndex(db: D1Database, partnerId: string, f: ListFilter): Promise<IndexRow[]> {
  const where = ['partner_id = ?'];
  const args: unknown[] = [partnerId];
  if (f.customerRef !== undefined) {
    where.push('customer_ref = ?');
    args.push(f.customerRef);
  }
  if (f.customerRefSource !== undefined) {
    where.push('customer_ref_source = ?');
    args.push(f.customerRefSource);
  }
  if (f.status !== undefined) {
    where.push('status = ?');
    args.push(f.status);
  }
  if (f.cursor !== undefined) {
    where.push('id < ?');
    args.push(f.cursor);
  }
  const { results } = await db
    .prepare(`SELECT * FROM verifications WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`)
    .bind(...args, f.limit)
    .all<IndexRow>();
  return results;
}
