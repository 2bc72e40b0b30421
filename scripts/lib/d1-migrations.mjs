// The D1 migrations (migrations/NNNN_*.sql) as statements, for stacks that
// apply them without `wrangler d1 migrations apply`: the Miniflare test starter
// and the bench's in-memory worker. `npm start` and `wrangler dev` stacks use
// wrangler's own command (applyWithWrangler), which records what it applied.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** [{ name, statements }] in file order. Statements end with `;` at the end of a line; `--` lines are comments. */
export function migrations(root) {
  const dir = join(root, 'migrations');
  let files;
  try {
    files = readdirSync(dir)
      .filter((f) => /^\d{4}_.+\.sql$/.test(f))
      .sort();
  } catch {
    return [];
  }
  return files.map((name) => {
    const sql = readFileSync(join(dir, name), 'utf8')
      .split('\n')
      .filter((l) => !/^\s*--/.test(l))
      .join('\n');
    const statements = sql
      .split(/;\s*(?:\n|$)/)
      .map((s) => s.trim())
      .filter(Boolean);
    return { name, statements };
  });
}

/**
 * Applies each migration not applied yet to a D1 binding (Miniflare's `getD1Database`), in order, and
 * records it in wrangler's own table (`d1_migrations`), as `wrangler d1 migrations apply` does: a
 * database kept across a restart is migrated once (an `ALTER TABLE … ADD COLUMN` cannot run twice).
 */
export async function applyMigrations(db, root) {
  await db
    .prepare(
      'CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)',
    )
    .run();
  const { results } = await db.prepare('SELECT name FROM d1_migrations').all();
  const applied = new Set(results.map((r) => r.name));
  for (const m of migrations(root)) {
    if (applied.has(m.name)) continue;
    await db.batch([...m.statements.map((s) => db.prepare(s)), db.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(m.name)]);
  }
}

/** `wrangler d1 migrations apply DB --local` (into `persistTo` when given). Returns wrangler's exit status and output. */
export function applyWithWrangler(root, env, persistTo) {
  const r = spawnSync(
    join(root, 'node_modules/.bin/wrangler'),
    ['d1', 'migrations', 'apply', 'DB', '--local', ...(persistTo ? ['--persist-to', persistTo] : [])],
    { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' },
  );
  return { status: r.status ?? 1, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** The same without blocking the event loop (test starters run several stacks at once). */
export function applyWithWranglerAsync(root, env, persistTo) {
  return new Promise((resolve) => {
    const child = spawn(
      join(root, 'node_modules/.bin/wrangler'),
      ['d1', 'migrations', 'apply', 'DB', '--local', ...(persistTo ? ['--persist-to', persistTo] : [])],
      { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => resolve({ status: 1, output: output + String(err) }));
    child.on('close', (code) => resolve({ status: code ?? 1, output }));
  });
}
