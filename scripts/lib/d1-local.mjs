// Applies migrations/*.sql to the local D1 database (binding DB) of a
// wrangler state directory, as `wrangler d1 migrations apply DB --local`
// would (same file, same d1_migrations record), through Miniflare directly:
// about a second instead of three, for test stacks that start many times.
// Each migration runs once; an applied one is skipped.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The migrations, in order: [name, sql]. */
export function migrations(dir = join(ROOT, 'migrations')) {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort()
    .map((f) => [f, readFileSync(join(dir, f), 'utf8')]);
}

/** The database id wrangler.toml gives binding DB (the local file is named after it). */
export function databaseId() {
  const toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
  const block = /\[\[d1_databases\]\][^[]*?binding\s*=\s*"DB"[^[]*/.exec(toml)?.[0] ?? '';
  return /database_id\s*=\s*"([^"]+)"/.exec(block)?.[1] ?? 'DB';
}

/** Statements of a migration file, split on `;` at line ends (comments dropped). */
export function statements(sql) {
  return sql
    .split('\n')
    .map((l) => l.replace(/--.*$/, ''))
    .join('\n')
    .split(/;\s*\n|;\s*$/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Applies what is not applied yet to a D1Database-like binding (prepare/batch), recording it in d1_migrations. */
export async function applyMigrations(db) {
  await db
    .prepare(
      'CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)',
    )
    .run();
  const done = new Set((await db.prepare('SELECT name FROM d1_migrations').all()).results.map((r) => r.name));
  for (const [name, sql] of migrations()) {
    if (done.has(name)) continue;
    await db.batch([...statements(sql).map((s) => db.prepare(s)), db.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(name)]);
  }
}

/** Applies the migrations to `<stateDir>/v3/d1` (a wrangler --persist-to directory). */
export async function applyLocalMigrations(stateDir) {
  const { Miniflare } = await import('miniflare');
  const mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response(null, { status: 404 }); } }',
    d1Databases: { DB: databaseId() },
    d1Persist: join(stateDir, 'v3/d1'),
  });
  try {
    await applyMigrations(await mf.getD1Database('DB'));
  } finally {
    await mf.dispose();
  }
}
