/**
 * A D1 database the migrations were not applied to (or not all of them):
 * D1 answers "no such table" or "no such column". That is the operator's
 * to fix, so it is a `500 MISCONFIGURED` naming the migration to apply (and a
 * log line saying the same), never a bare `INTERNAL_ERROR`.
 */
import { log } from './log';
import { ApiError, type Issue } from './errors';
import { bindingIfAny, type Env } from './env';

/** Each table, and the migration (migrations/) that makes it: test/worker/d1-schema.test.ts checks it against the files. */
export const TABLE_MIGRATIONS: Readonly<Record<string, string>> = {
  verifications: '0001_verifications.sql',
  ops_seen: '0002_ops.sql',
  ops_counts: '0002_ops.sql',
  ops_values: '0002_ops.sql',
  ops_webhook_attempts: '0002_ops.sql',
  ops_webhook_deliveries: '0002_ops.sql',
  entity_owners: '0003_entity_owners.sql',
};
/** The newest migration: what an unknown column (a schema older than the code) asks for. */
export const LATEST_MIGRATION = '0005_verification_vendor.sql';

const APPLY = 'wrangler d1 migrations apply DB --remote';

/** The migration a D1 error says is missing, or undefined when it is not a schema error. */
export function missingMigration(err: unknown): string | undefined {
  const message = err instanceof Error ? err.message : '';
  const table = /no such table: (?:main\.)?(\w+)/.exec(message)?.[1];
  if (table) return TABLE_MIGRATIONS[table] ?? LATEST_MIGRATION;
  if (/no such column|has no column named/.test(message)) return LATEST_MIGRATION;
  return undefined;
}

/** The answer for a schema error (and its log line), or undefined for any other error. */
export function schemaError(err: unknown, requestId: string | undefined): ApiError | undefined {
  const migration = missingMigration(err);
  if (!migration) return undefined;
  log.error('d1_not_migrated', { requestId, migration: `migrations/${migration}`, fix: APPLY });
  return new ApiError(
    500,
    'MISCONFIGURED',
    `The D1 database (DB) is not migrated: apply migrations/${migration} (${APPLY}, or npm run deploy).`,
  );
}

/** A column each migration after the tables' adds (table.column → migration): the probe asks for it. */
export const COLUMN_MIGRATIONS: Readonly<Record<string, string>> = {
  'verifications.attempts': '0004_verification_attempts.sql',
  'verifications.vendor': '0005_verification_vendor.sql',
};

/** Whether this isolate found its D1 migrated (an isolate serves one deployment, and a schema does not go back). */
// eslint-disable-next-line registries/no-dependency-registry -- a cache of one probe's success, so each request does not ask D1 again
let migrated = false;

/**
 * The migration a D1 still needs, or undefined when every table and column the
 * code uses is there: one batch of `SELECT … LIMIT 0`, oldest migration first,
 * run until it passes once in this isolate (then remembered).
 */
export async function pendingMigration(db: D1Database): Promise<string | undefined> {
  if (migrated) return undefined;
  const probes = [
    ...Object.keys(TABLE_MIGRATIONS).map((table) => `SELECT 1 FROM ${table} LIMIT 0`),
    ...Object.keys(COLUMN_MIGRATIONS).map((c) => `SELECT ${c.split('.')[1]!} FROM ${c.split('.')[0]!} LIMIT 0`),
  ];
  try {
    await db.batch(probes.map((sql) => db.prepare(sql)));
  } catch (err) {
    const migration = missingMigration(err);
    if (migration) return migration;
    throw err;
  }
  migrated = true;
  return undefined;
}

/**
 * What keeps the index (D1, binding `DB`) from being written, as the
 * configuration guard's issues: no `DB` binding where verifications are
 * Durable Objects (a node test's in-memory twin has no index), or a D1 the
 * migrations were not applied to. Before, such a deployment answered every
 * route but the list, and the verifications it served were never listed.
 */
export async function indexProblems(env: Env): Promise<Issue[]> {
  if (!bindingIfAny(env, 'VERIFICATIONS')) return [];
  const db = bindingIfAny(env, 'DB');
  if (!db) return [{ issueLocation: 'DB', issue: 'is not bound: the index of verifications (D1, migrations/) needs it' }];
  const migration = await pendingMigration(db);
  if (!migration) return [];
  log.error('d1_not_migrated', { migration: `migrations/${migration}`, fix: APPLY });
  return [{ issueLocation: 'DB', issue: `is not migrated: apply migrations/${migration} (${APPLY}, or npm run deploy)` }];
}
