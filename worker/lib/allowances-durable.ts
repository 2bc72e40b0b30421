/**
 * The Durable Object behind `allowances.ts`: one budget (its entries, each
 * lapsing at `until`), consistent across isolates. SQLite with an index on
 * `until`, so a take costs the same with five entries or five thousand (a
 * partner's open verifications).
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from './env';

export class LimitsStore extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS entries (id TEXT PRIMARY KEY, until INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS entries_until ON entries (until);`);
  }

  /** As `takeFrom` in allowances.ts: lapsed entries go; an entry already held stays taken; a full budget refuses. */
  async take(id: string, until: number, max: number): Promise<boolean> {
    const now = Date.now();
    this.sql.exec('DELETE FROM entries WHERE until <= ?', now);
    if (this.sql.exec('SELECT 1 FROM entries WHERE id = ?', id).toArray().length) return true;
    const n = this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM entries').one().n;
    if (n >= max) return false;
    this.sql.exec('INSERT INTO entries (id, until) VALUES (?, ?)', id, until);
    // Swept when the last entry lapses: an idle budget keeps nothing.
    const last = this.sql.exec<{ u: number }>('SELECT MAX(until) AS u FROM entries').one().u;
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(last);
    return true;
  }

  async release(id: string): Promise<void> {
    this.sql.exec('DELETE FROM entries WHERE id = ?', id);
  }

  async alarm(): Promise<void> {
    this.sql.exec('DELETE FROM entries WHERE until <= ?', Date.now());
    const last = this.sql.exec<{ u: number | null }>('SELECT MAX(until) AS u FROM entries').one().u;
    if (last !== null) await this.ctx.storage.setAlarm(last);
  }
}
