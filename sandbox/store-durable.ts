/**
 * `SandboxStore`: the sandbox's state in one SQLite-backed Durable Object
 * (wrangler.toml binds it as SANDBOX_STORE with a `new_sqlite_classes`
 * migration). Its public methods are the `SandboxStoreApi` of store.ts,
 * called over Workers RPC. State survives requests, isolates and restarts;
 * every row carries `expires_at`, reads skip expired rows, writes and an
 * alarm delete them.
 */
import { DurableObject } from 'cloudflare:workers';
import type { SandboxSettings as Env } from './config';
import {
  clock,
  documentIds,
  MAX_ENTITIES_PER_OWNER,
  MAX_RECORDS,
  type CheckRecord,
  type EntityRecord,
  type EntityScope,
  type OutboxMessage,
  type StripeSessionRecord,
  type SandboxStoreApi,
  type StoreStats,
} from './store';

/** How often the alarm sweeps expired rows while any exist. */
const SWEEP_EVERY_MS = 10 * 60 * 1000;

type Row = Record<string, SqlStorageValue>;

export class SandboxStore extends DurableObject<Env> implements SandboxStoreApi {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS entities (
        id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, child_id TEXT,
        created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS entities_owner ON entities (customer_id, child_id);
      CREATE TABLE IF NOT EXISTS documents (id TEXT PRIMARY KEY, entity_id TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS documents_entity ON documents (entity_id);
      CREATE TABLE IF NOT EXISTS checks (
        id TEXT PRIMARY KEY, entity_id TEXT NOT NULL, link_id TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS checks_entity ON checks (entity_id, created_at);
      CREATE TABLE IF NOT EXISTS outbox (
        id TEXT PRIMARY KEY, customer_ref TEXT NOT NULL,
        created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS outbox_ref ON outbox (customer_ref, created_at);
      CREATE TABLE IF NOT EXISTS stripe_sessions (
        id TEXT PRIMARY KEY, token TEXT NOT NULL,
        created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS stripe_sessions_token ON stripe_sessions (token);
    `);
  }

  private rows<T>(query: string, ...bindings: SqlStorageValue[]): T[] {
    return this.sql
      .exec<Row>(query, ...bindings)
      .toArray()
      .map((r) => JSON.parse(r.data as string) as T);
  }

  private first<T>(query: string, ...bindings: SqlStorageValue[]): T | null {
    return this.rows<T>(query, ...bindings)[0] ?? null;
  }

  /** Deletes expired rows; returns how many rows are left. */
  private sweep(): number {
    const now = clock.now();
    this.sql.exec('DELETE FROM entities WHERE expires_at <= ?', now);
    this.sql.exec('DELETE FROM checks WHERE expires_at <= ?', now);
    this.sql.exec('DELETE FROM outbox WHERE expires_at <= ?', now);
    this.sql.exec('DELETE FROM stripe_sessions WHERE expires_at <= ?', now);
    // Past the cap, the oldest go first.
    for (const [table, max] of [
      ['entities', MAX_RECORDS.entities],
      ['checks', MAX_RECORDS.checks],
      ['outbox', MAX_RECORDS.messages],
      ['stripe_sessions', MAX_RECORDS.stripeSessions],
    ] as const) {
      this.sql.exec(`DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} ORDER BY created_at DESC, id DESC LIMIT -1 OFFSET ?)`, max);
    }
    this.sql.exec('DELETE FROM documents WHERE entity_id NOT IN (SELECT id FROM entities)');
    const left = this.sql
      .exec<{ n: number }>(
        'SELECT (SELECT COUNT(*) FROM entities) + (SELECT COUNT(*) FROM checks) + (SELECT COUNT(*) FROM outbox) + (SELECT COUNT(*) FROM stripe_sessions) AS n',
      )
      .one();
    return left.n;
  }

  private async afterWrite(): Promise<void> {
    this.sweep();
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(clock.now() + SWEEP_EVERY_MS);
  }

  override async alarm(): Promise<void> {
    if (this.sweep() > 0) await this.ctx.storage.setAlarm(clock.now() + SWEEP_EVERY_MS);
  }

  async putEntity(record: EntityRecord): Promise<void> {
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `INSERT INTO entities (id, customer_id, child_id, created_at, expires_at, data) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at, data = excluded.data`,
        record.entityId,
        record.owner.customerId,
        record.owner.childId,
        record.createdAt,
        record.expiresAt,
        JSON.stringify(record),
      );
      // Past the owner's cap, that owner's oldest go (documents follow in the sweep).
      this.sql.exec(
        `DELETE FROM entities WHERE id IN (SELECT id FROM entities WHERE customer_id = ? AND child_id IS ?
           ORDER BY created_at DESC, id DESC LIMIT -1 OFFSET ?)`,
        record.owner.customerId,
        record.owner.childId,
        MAX_ENTITIES_PER_OWNER,
      );
      this.sql.exec('DELETE FROM documents WHERE entity_id = ?', record.entityId);
      for (const id of documentIds(record.entity)) {
        this.sql.exec('INSERT OR REPLACE INTO documents (id, entity_id) VALUES (?, ?)', id, record.entityId);
      }
    });
    await this.afterWrite();
  }

  async getEntity(entityId: string): Promise<EntityRecord | null> {
    return this.first('SELECT data FROM entities WHERE id = ? AND expires_at > ?', entityId, clock.now());
  }

  async findEntityByDocument(documentId: string): Promise<EntityRecord | null> {
    return this.first(
      'SELECT e.data AS data FROM documents d JOIN entities e ON e.id = d.entity_id WHERE d.id = ? AND e.expires_at > ?',
      documentId,
      clock.now(),
    );
  }

  async listEntities(scope: EntityScope): Promise<EntityRecord[]> {
    const now = clock.now();
    if ('allChildren' in scope) {
      return this.rows('SELECT data FROM entities WHERE customer_id = ? AND expires_at > ? ORDER BY created_at, id', scope.customerId, now);
    }
    return this.rows(
      'SELECT data FROM entities WHERE customer_id = ? AND child_id IS ? AND expires_at > ? ORDER BY created_at, id',
      scope.customerId,
      scope.childId,
      now,
    );
  }

  async putCheck(record: CheckRecord): Promise<void> {
    this.sql.exec(
      `INSERT INTO checks (id, entity_id, link_id, created_at, expires_at, data) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at, data = excluded.data`,
      record.checkId,
      record.entityId,
      record.linkId,
      record.createdAt,
      record.expiresAt,
      JSON.stringify(record),
    );
    await this.afterWrite();
  }

  async getCheck(checkId: string): Promise<CheckRecord | null> {
    return this.first('SELECT data FROM checks WHERE id = ? AND expires_at > ?', checkId, clock.now());
  }

  async getCheckByLink(linkId: string): Promise<CheckRecord | null> {
    return this.first('SELECT data FROM checks WHERE link_id = ? AND expires_at > ?', linkId, clock.now());
  }

  async listChecks(entityId: string): Promise<CheckRecord[]> {
    return this.rows(
      'SELECT data FROM checks WHERE entity_id = ? AND expires_at > ? ORDER BY created_at DESC, id DESC',
      entityId,
      clock.now(),
    );
  }

  async addMessage(message: OutboxMessage): Promise<void> {
    this.sql.exec(
      'INSERT OR REPLACE INTO outbox (id, customer_ref, created_at, expires_at, data) VALUES (?, ?, ?, ?, ?)',
      message.id,
      message.customerRef,
      message.createdAt,
      message.expiresAt,
      JSON.stringify(message),
    );
    await this.afterWrite();
  }

  async listMessages(customerRef: string): Promise<OutboxMessage[]> {
    return this.rows('SELECT data FROM outbox WHERE customer_ref = ? AND expires_at > ? ORDER BY created_at, id', customerRef, clock.now());
  }

  async putStripeSession(record: StripeSessionRecord): Promise<void> {
    this.sql.exec(
      `INSERT INTO stripe_sessions (id, token, created_at, expires_at, data) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at, data = excluded.data`,
      record.id,
      record.token,
      record.createdAt,
      record.expiresAt,
      JSON.stringify(record),
    );
    await this.afterWrite();
  }

  async getStripeSession(id: string): Promise<StripeSessionRecord | null> {
    return this.first('SELECT data FROM stripe_sessions WHERE id = ? AND expires_at > ?', id, clock.now());
  }

  async getStripeSessionByToken(token: string): Promise<StripeSessionRecord | null> {
    return this.first('SELECT data FROM stripe_sessions WHERE token = ? AND expires_at > ?', token, clock.now());
  }

  async stats(): Promise<StoreStats> {
    const count = (table: string) => this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
    return { entities: count('entities'), documents: count('documents'), checks: count('checks'), messages: count('outbox') };
  }
}
