/**
 * A D1 database the migrations were not applied to (or not all of them):
 * D1 answers "no such table" or "no such column". That is the operator's
 * to fix, so it is a `500 MISCONFIGURED` naming the migration to apply (and a
 * log line saying the same), never a bare `INTERNAL_ERROR`.
 */
import { log } from './log';
import { ApiError } from './errors';

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
export const LATEST_MIGRATION = '0004_verification_attempts.sql';

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
