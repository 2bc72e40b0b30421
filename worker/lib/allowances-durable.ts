/**
 * The Durable Object behind `allowances.ts`: budgets (each a set of entries
 * lapsing at `until`), consistent across isolates, since a budget always
 * lives in the same object. A partner's open budget has an object of its own;
 * the budgets of clients and numbers (hashed keys, a new one for nearly every
 * link request) share LIMIT_SHARDS objects, so a link request asks an object
 * already running instead of creating one. SQLite with an index on
 * (budget, until), so a take costs the same with five entries or five
 * thousand (a partner's open verifications).
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from './env';
import { systemClock } from './clock';
import { PAUSE_ENTRY } from './allowances';

export class LimitsStore extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** The alarm this object set (the sweep), so a take does not read it back every time. */
  private alarmAt: number | null | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql
      .exec(`CREATE TABLE IF NOT EXISTS budget_entries (budget TEXT NOT NULL, id TEXT NOT NULL, until INTEGER NOT NULL, PRIMARY KEY (budget, id));
      CREATE INDEX IF NOT EXISTS budget_entries_until ON budget_entries (budget, until);
      CREATE INDEX IF NOT EXISTS budget_entries_sweep ON budget_entries (until);`);
  }

  /** As `takeFrom` in allowances.ts: lapsed entries go; an entry already held stays taken; a full budget refuses. */
  async take(budget: string, id: string, until: number, max: number): Promise<boolean> {
    const now = systemClock();
    this.sql.exec('DELETE FROM budget_entries WHERE budget = ? AND until <= ?', budget, now);
    if (this.sql.exec('SELECT 1 FROM budget_entries WHERE budget = ? AND id = ?', budget, id).toArray().length) return true;
    const n = this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM budget_entries WHERE budget = ?', budget).one().n;
    if (n >= max) return false;
    this.sql.exec('INSERT INTO budget_entries (budget, id, until) VALUES (?, ?, ?)', budget, id, until);
    // Swept when the last entry lapses: an idle object keeps nothing. The alarm is
    // read once per object's life, not on every take.
    this.alarmAt ??= await this.ctx.storage.getAlarm();
    if (this.alarmAt === null) {
      this.alarmAt = this.sql.exec<{ u: number }>('SELECT MAX(until) AS u FROM budget_entries').one().u;
      await this.ctx.storage.setAlarm(this.alarmAt);
    }
    return true;
  }

  /** As `pauseIn` in allowances.ts: the pause is an entry of the key's own (PAUSE_ENTRY), swept like any other. */
  async pause(budget: string, until: number): Promise<number> {
    const now = systemClock();
    this.sql.exec('DELETE FROM budget_entries WHERE budget = ? AND until <= ?', budget, now);
    this.sql.exec(
      'INSERT INTO budget_entries (budget, id, until) VALUES (?, ?, ?) ON CONFLICT (budget, id) DO UPDATE SET until = MAX(until, excluded.until)',
      budget,
      PAUSE_ENTRY,
      until,
    );
    const end = this.sql
      .exec<{ until: number }>('SELECT until FROM budget_entries WHERE budget = ? AND id = ?', budget, PAUSE_ENTRY)
      .one().until;
    this.alarmAt ??= await this.ctx.storage.getAlarm();
    if (this.alarmAt === null || this.alarmAt < end) {
      this.alarmAt = end;
      await this.ctx.storage.setAlarm(end);
    }
    return end;
  }

  async pausedUntil(budget: string): Promise<number | null> {
    const row = this.sql
      .exec<{ until: number }>(
        'SELECT until FROM budget_entries WHERE budget = ? AND id = ? AND until > ?',
        budget,
        PAUSE_ENTRY,
        systemClock(),
      )
      .toArray()[0];
    return row?.until ?? null;
  }

  async release(budget: string, id: string): Promise<void> {
    this.sql.exec('DELETE FROM budget_entries WHERE budget = ? AND id = ?', budget, id);
  }

  async alarm(): Promise<void> {
    this.sql.exec('DELETE FROM budget_entries WHERE until <= ?', systemClock());
    const last = this.sql.exec<{ u: number | null }>('SELECT MAX(until) AS u FROM budget_entries').one().u;
    this.alarmAt = last;
    if (last !== null) await this.ctx.storage.setAlarm(last);
  }
}
