/**
 * The verification index in D1 (binding DB, `migrations/`): one row per
 * verification, per partner, for `GET /v1/verifications` and the console.
 * The verification's Durable Object writes its row on every state change and
 * deletes it when the verification is forgotten. Nothing personal: ids,
 * statuses, times and the partner's own `customerRef` (gone after a redaction).
 * Beside it, `entity_owners`: which partner's verification holds which vendor
 * entity, by the entity id's SHA-256 (`entityKey`), for the owner checks of
 * `/v1` (search visibility, `entityId` on create).
 */
import { vendorOf, type Verification } from './verification';
import { checkStatusOf, endedAt, lifecycle, stateAt } from './lifecycle';

/**
 * A missed index write (D1 unreachable, a table renamed or not migrated yet)
 * is owed: the verification's alarm writes its row again, 5 s after the first
 * failure, doubling to 5 minutes, until it lands (the Durable Object keeps
 * this in its storage, so a restart does not forget it).
 */
export interface IndexOwed {
  at: number;
  failures: number;
}
export const INDEX_RETRY_MS = 5_000;
export const INDEX_RETRY_MAX_MS = 5 * 60_000;

/** The owed write after one more failure at `now`. */
export function indexOwedAfter(owed: IndexOwed | undefined, now: number): IndexOwed {
  const failures = (owed?.failures ?? 0) + 1;
  return { failures, at: now + Math.min(INDEX_RETRY_MAX_MS, INDEX_RETRY_MS * 2 ** (failures - 1)) };
}

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
  /** The ended attempts, `[{checkStatus, endedAt}]` as JSON (endedAt in ms); null while none has ended. */
  attempts: string | null;
  /** Its vendor (`idv` for a row written before migrations/0005). */
  vendor: string;
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
    check_status: linked ? checkStatusOf(v) : null,
    livemode: livemode ? 1 : 0,
    created_at: v.createdAt,
    link_created_at: v.linkCreatedAt ?? (v.entityId !== undefined ? v.createdAt : null),
    final_at: stateAt(v, 'final') ?? null,
    ended_at: endedAt(v) ?? null,
    expires_at: v.deadline,
    redacted: v.redactedAt !== undefined ? 1 : 0,
    attempts: v.attempts?.length ? JSON.stringify(v.attempts.map((a) => ({ checkStatus: a.checkStatus, endedAt: a.endedAt }))) : null,
    vendor: vendorOf(v),
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
  'attempts',
  'vendor',
  'updated_at',
] as const satisfies readonly (keyof IndexRow)[];

const encoder = new TextEncoder();

/**
 * How the index names a vendor entity: the SHA-256 of its id. Not keyed: an
 * entity id is the vendor's random identifier (no small space to try), and a
 * key would change with the session secret, losing every earlier owner.
 */
export async function entityKey(entityId: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(`entity ${entityId}`)));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The row, and the verification's entity owner row (`owner`: its `entityKey`; null: none, e.g. after a redaction). */
export async function writeIndex(db: D1Database, row: IndexRow, owner: string | null = null): Promise<void> {
  const updates = COLUMNS.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`);
  await db.batch([
    db
      .prepare(
        `INSERT INTO verifications (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (id) DO UPDATE SET ${updates.join(', ')}`,
      )
      .bind(...COLUMNS.map((c) => row[c])),
    owner === null
      ? db.prepare('DELETE FROM entity_owners WHERE verification_id = ?').bind(row.id)
      : db
          .prepare('INSERT OR REPLACE INTO entity_owners (verification_id, partner_id, entity_key) VALUES (?, ?, ?)')
          .bind(row.id, row.partner_id, owner),
  ]);
}

export async function deleteIndex(db: D1Database, id: string): Promise<void> {
  await db.batch([
    db.prepare('DELETE FROM verifications WHERE id = ?').bind(id),
    db.prepare('DELETE FROM entity_owners WHERE verification_id = ?').bind(id),
  ]);
}

/** Entity keys per owner query: D1 binds at most 100 parameters a statement (the partner id and the mode are two). */
export const OWNER_QUERY_KEYS = 90;

/**
 * Which of `entityIds` one of this partner's verifications of this mode holds
 * (any number: asked OWNER_QUERY_KEYS at a time). The mode is the owning
 * verification's index row's: a D1 shared by a sandbox deployment and a live
 * one (docs/operations.md) never lets a test entity count as owned under a live key.
 */
export async function ownedEntities(
  db: D1Database,
  partnerId: string,
  livemode: boolean,
  entityIds: readonly string[],
): Promise<Set<string>> {
  const keys = new Map<string, string>();
  for (const id of entityIds) keys.set(await entityKey(id), id);
  const all = [...keys.keys()];
  const owned = new Set<string>();
  for (let i = 0; i < all.length; i += OWNER_QUERY_KEYS) {
    const chunk = all.slice(i, i + OWNER_QUERY_KEYS);
    const { results } = await db
      .prepare(
        `SELECT DISTINCT o.entity_key FROM entity_owners o JOIN verifications v ON v.id = o.verification_id WHERE o.partner_id = ? AND v.livemode = ? AND o.entity_key IN (${chunk.map(() => '?').join(', ')})`,
      )
      .bind(partnerId, livemode ? 1 : 0, ...chunk)
      .all<{ entity_key: string }>();
    for (const r of results) owned.add(keys.get(r.entity_key)!);
  }
  return owned;
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

/**
 * A partner's rows of one mode, newest first (ids are ULIDs: they sort by
 * creation time). A key sees its own mode only: a D1 shared by a sandbox
 * deployment and a live one never shows test rows under a live key.
 */
export async function listIndex(db: D1Database, partnerId: string, livemode: boolean, f: ListFilter): Promise<IndexRow[]> {
  const where = ['partner_id = ?', 'livemode = ?'];
  const args: unknown[] = [partnerId, livemode ? 1 : 0];
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
