/**
 * Where the sandbox keeps its state, behind one small interface:
 * - `MemoryStore` (this file) for node-side tests and plain `app.request()`;
 * - `SandboxStore` (store-durable.ts), a SQLite Durable Object, whenever the
 *   worker has the `SANDBOX_STORE` binding (wrangler dev, workers.dev).
 * Every record carries `expiresAt`; reads never return an expired record and
 * writes sweep them away, so data expires on its own.
 */
import type { Entity } from '../worker/vendors/idv/schemas';

/** Who created a record: the CustomerID + CustomerChildID combination (spec 1.5). */
export interface Owner {
  customerId: string;
  /** `null` for the customer itself. */
  childId: string | null;
}

export interface EntityRecord {
  entityId: string;
  owner: Owner;
  entity: Entity;
  /** X-Service-Channel of the call that created it, truncated to 64. */
  channel: string | null;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
}

export type FlowOutcome = 'complete' | 'fail';

export interface CheckRecord {
  checkId: string;
  entityId: string;
  owner: Owner;
  checkStatus: string;
  /** Opaque id in the hosted-flow URL; also accepted as the result call's `token`. */
  linkId: string;
  linkExpiresAt: number;
  flowId: string | null;
  successRedirectURL: string | null;
  errorRedirectURL: string | null;
  customerRef: string | null;
  applicationRef: string | null;
  channelRef: string | null;
  provider: string | null;
  channel: string | null;
  createdAt: number;
  /** When the person finished the hosted flow (a button was pressed). */
  flowFinishedAt: number | null;
  outcome: FlowOutcome | null;
  completedAt: number | null;
  reprocessedAt: number | null;
  reprocessCount: number;
  expiresAt: number;
}

export interface OutboxMessage {
  id: string;
  customerRef: string;
  /** Already masked: only the country code and the last three digits. */
  to: string;
  recipientName: string | null;
  senderName: string | null;
  messageTemplateId: string | null;
  text: string;
  link: string;
  channel: string | null;
  createdAt: number;
  expiresAt: number;
}

/**
 * A session of the Stripe double (sandbox/stripe/): Stripe's public fields,
 * plus who made it and the hosted page's current token. The token changes
 * each time the page is used, as Stripe's short-lived `url` does.
 */
export interface StripeSessionRecord {
  id: string;
  /** SHA-256 of the secret key that made it (hex): another key does not see it. */
  owner: string;
  status: 'requires_input' | 'processing' | 'verified' | 'canceled';
  lastError: { code: string; reason: string } | null;
  type: string;
  clientReferenceId: string | null;
  metadata: Record<string, string>;
  returnUrl: string | null;
  redacted: boolean;
  /** The hosted page's token while the session requires input. */
  token: string;
  createdAt: number;
  expiresAt: number;
}

/** Whose entities a search looks at: one owner, or a customer and all its children. */
export type EntityScope = { customerId: string; childId: string | null } | { customerId: string; allChildren: true };

export interface SandboxStoreApi {
  putEntity(record: EntityRecord): Promise<void>;
  getEntity(entityId: string): Promise<EntityRecord | null>;
  findEntityByDocument(documentId: string): Promise<EntityRecord | null>;
  listEntities(scope: EntityScope): Promise<EntityRecord[]>;
  putCheck(record: CheckRecord): Promise<void>;
  getCheck(checkId: string): Promise<CheckRecord | null>;
  getCheckByLink(linkId: string): Promise<CheckRecord | null>;
  /** Newest first. */
  listChecks(entityId: string): Promise<CheckRecord[]>;
  addMessage(message: OutboxMessage): Promise<void>;
  /** Oldest first. */
  listMessages(customerRef: string): Promise<OutboxMessage[]>;
  /** Rows held, expired or not (diagnostics and tests). */
  stats(): Promise<StoreStats>;
  putStripeSession(record: StripeSessionRecord): Promise<void>;
  getStripeSession(id: string): Promise<StripeSessionRecord | null>;
  getStripeSessionByToken(token: string): Promise<StripeSessionRecord | null>;
}

export interface StoreStats {
  entities: number;
  documents: number;
  checks: number;
  messages: number;
}

/**
 * At most this many records of each kind are kept; beyond it the oldest go
 * first (a public demo must not grow without bound).
 */
export const MAX_RECORDS = { entities: 10_000, checks: 20_000, messages: 5_000, stripeSessions: 20_000 } as const;

/**
 * At most this many entities per owner (a customer, or one of its children):
 * past it, that owner's oldest go first. So one client, who can only write as
 * the owner of the credentials it holds, cannot push out other owners'
 * records; the global cap above is only reached when ten owners are full.
 */
export const MAX_ENTITIES_PER_OWNER = 1_000;

const sameOwner = (a: Owner, b: Owner) => a.customerId === b.customerId && a.childId === b.childId;

/** The sandbox's clock; tests move it to expire links and data without waiting. */
export const clock = { now: (): number => Date.now() };

export function documentIds(entity: Entity): string[] {
  return (entity.identityDocs ?? []).map((d) => d.documentId).filter((id): id is string => typeof id === 'string');
}

export function inScope(owner: Owner, scope: EntityScope): boolean {
  if (owner.customerId !== scope.customerId) return false;
  return 'allChildren' in scope ? true : owner.childId === scope.childId;
}

const clone = <T>(v: T): T => structuredClone(v);

/** In-memory implementation, one per isolate. Deep-copies in and out like the RPC boundary does. */
export class MemoryStore implements SandboxStoreApi {
  private entities = new Map<string, EntityRecord>();
  private checks = new Map<string, CheckRecord>();
  private messages = new Map<string, OutboxMessage>();
  private stripeSessions = new Map<string, StripeSessionRecord>();

  private live<T extends { expiresAt: number }>(r: T | undefined): T | null {
    return r && r.expiresAt > clock.now() ? clone(r) : null;
  }

  sweep(): void {
    const now = clock.now();
    const kinds: [Map<string, { expiresAt: number; createdAt: number }>, number][] = [
      [this.entities, MAX_RECORDS.entities],
      [this.checks, MAX_RECORDS.checks],
      [this.messages, MAX_RECORDS.messages],
      [this.stripeSessions, MAX_RECORDS.stripeSessions],
    ];
    for (const [map, max] of kinds) {
      for (const [k, v] of map) if (v.expiresAt <= now) map.delete(k);
      if (map.size >= max) {
        const oldest = [...map.entries()].sort((a, b) => a[1].createdAt - b[1].createdAt).slice(0, map.size - max + 1);
        for (const [k] of oldest) map.delete(k);
      }
    }
  }

  clear(): void {
    this.entities.clear();
    this.checks.clear();
    this.messages.clear();
    this.stripeSessions.clear();
  }

  async putEntity(record: EntityRecord) {
    this.sweep();
    if (!this.entities.has(record.entityId)) {
      const own = [...this.entities.values()].filter((r) => sameOwner(r.owner, record.owner));
      const over = own.length - MAX_ENTITIES_PER_OWNER + 1;
      if (over > 0) {
        own.sort((a, b) => a.createdAt - b.createdAt || a.entityId.localeCompare(b.entityId));
        for (const r of own.slice(0, over)) this.entities.delete(r.entityId);
      }
    }
    this.entities.set(record.entityId, clone(record));
  }
  async getEntity(entityId: string) {
    return this.live(this.entities.get(entityId));
  }
  async findEntityByDocument(documentId: string) {
    for (const r of this.entities.values()) {
      if (documentIds(r.entity).includes(documentId)) return this.live(r);
    }
    return null;
  }
  async listEntities(scope: EntityScope) {
    const out: EntityRecord[] = [];
    for (const r of this.entities.values()) {
      const live = inScope(r.owner, scope) ? this.live(r) : null;
      if (live) out.push(live);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.entityId.localeCompare(b.entityId));
  }
  async putCheck(record: CheckRecord) {
    this.sweep();
    this.checks.set(record.checkId, clone(record));
  }
  async getCheck(checkId: string) {
    return this.live(this.checks.get(checkId));
  }
  async getCheckByLink(linkId: string) {
    for (const r of this.checks.values()) if (r.linkId === linkId) return this.live(r);
    return null;
  }
  async listChecks(entityId: string) {
    const out: CheckRecord[] = [];
    for (const r of this.checks.values()) {
      const live = r.entityId === entityId ? this.live(r) : null;
      if (live) out.push(live);
    }
    return out.sort((a, b) => b.createdAt - a.createdAt || b.checkId.localeCompare(a.checkId));
  }
  async addMessage(message: OutboxMessage) {
    this.sweep();
    this.messages.set(message.id, clone(message));
  }
  async stats() {
    let documents = 0;
    for (const r of this.entities.values()) documents += documentIds(r.entity).length;
    return { entities: this.entities.size, documents, checks: this.checks.size, messages: this.messages.size };
  }
  async putStripeSession(record: StripeSessionRecord) {
    this.sweep();
    this.stripeSessions.set(record.id, clone(record));
  }
  async getStripeSession(id: string) {
    return this.live(this.stripeSessions.get(id));
  }
  async getStripeSessionByToken(token: string) {
    for (const r of this.stripeSessions.values()) if (r.token === token) return this.live(r);
    return null;
  }
  async listMessages(customerRef: string) {
    const out: OutboxMessage[] = [];
    for (const r of this.messages.values()) {
      const live = r.customerRef === customerRef ? this.live(r) : null;
      if (live) out.push(live);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }
}

/** The module-level store used when no Durable Object is bound (node tests). */
export const memoryStore = new MemoryStore();

/** Name of the one Durable Object instance that holds the sandbox. */
export const DURABLE_OBJECT_NAME = 'sandbox';

/** The Durable Object when `SANDBOX_STORE` is bound, else the in-memory store. */
export function storeFor(env: {
  // Structural (not SandboxEnv's namespace of the class): the Durable Object class imports this module.
  SANDBOX_STORE?: Pick<DurableObjectNamespace, 'idFromName'> & {
    get(id: ReturnType<DurableObjectNamespace['idFromName']>): SandboxStoreApi;
  };
}): SandboxStoreApi {
  const ns = env.SANDBOX_STORE;
  if (!ns) return memoryStore;
  return ns.get(ns.idFromName(DURABLE_OBJECT_NAME));
}
