/**
 * Idempotency-Key: a repeat of a link request with the same key (from the
 * same origin) within IDEMPOTENCY_TTL_MS returns the first answer and never
 * calls the vendor twice: no second entity, no second SMS. Records live in
 * Durable Objects (`IDEMPOTENCY`), so a repeat is caught whichever isolate it
 * reaches; a key always maps to the same one of IDEMPOTENCY_SHARDS objects,
 * which serialises the claims for that key. Shards rather than an object per
 * key: a warm object answers in place, where a new object per request would
 * be created (and its storage opened) on every link request. Node tests,
 * which have no binding, give records in memory as the `idempotency` port (test/support/node-twins.ts).
 */
import type { Env } from './env';
import type { WithDevSecrets } from './dev-secrets';
import { keyedHash } from './keyed-hash';
import { systemClock } from './clock';

export const IDEMPOTENCY_TTL_MS = 10 * 60 * 1000;
export const IDEMPOTENCY_SHARDS = 32;
/** An in-flight claim older than this is presumed dead (its isolate was evicted). */
export const IN_FLIGHT_STALE_MS = 60 * 1000;

export interface StoredAnswer {
  status: number;
  body: string;
}

export type Claim =
  /** `verified`: this exact request already passed the bot check before a definite failure freed the key. */
  { kind: 'new'; verified?: boolean } | { kind: 'replay'; answer: StoredAnswer } | { kind: 'busy' } | { kind: 'mismatch' };

export interface Record {
  fingerprint: string;
  at: number;
  answer?: StoredAnswer;
  /**
   * Freed after a definite failure, once the bot check had passed: a retry of
   * the same request needs no second Turnstile token (the first one is spent).
   */
  released?: true;
}

/** The record logic, shared by the Durable Object and the node tests' twin. */
export class IdempotencyRecords {
  constructor(
    private readonly get: (key: string) => Promise<Record | undefined>,
    private readonly put: (key: string, r: Record) => Promise<void>,
    private readonly del: (key: string) => Promise<void>,
  ) {}

  async claim(key: string, fingerprint: string, now = systemClock()): Promise<Claim> {
    const r = await this.get(key);
    if (r?.released) {
      const verified = r.fingerprint === fingerprint && now - r.at < IDEMPOTENCY_TTL_MS;
      await this.put(key, { fingerprint, at: now });
      return verified ? { kind: 'new', verified } : { kind: 'new' };
    }
    const alive = r && (r.answer ? now - r.at < IDEMPOTENCY_TTL_MS : now - r.at < IN_FLIGHT_STALE_MS);
    if (r && alive) {
      if (r.fingerprint !== fingerprint) return { kind: 'mismatch' };
      return r.answer ? { kind: 'replay', answer: r.answer } : { kind: 'busy' };
    }
    await this.put(key, { fingerprint, at: now });
    return { kind: 'new' };
  }

  async finish(key: string, fingerprint: string, answer: StoredAnswer, now = systemClock()): Promise<void> {
    await this.put(key, { fingerprint, at: now, answer });
  }

  /** Frees the key; with `verified`, remembers that this request passed the bot check. */
  async release(key: string, fingerprint?: string, verified = false, now = systemClock()): Promise<void> {
    if (verified && fingerprint !== undefined) await this.put(key, { fingerprint, at: now, released: true });
    else await this.del(key);
  }
}

export interface IdempotencyStoreApi {
  claim(key: string, fingerprint: string): Promise<Claim>;
  finish(key: string, fingerprint: string, answer: StoredAnswer): Promise<void>;
  release(key: string, fingerprint?: string, verified?: boolean): Promise<void>;
}

/** The records as Durable Objects, a key's shard each (the `idempotency` port; ports-for.ts builds it from the binding). */
export function durableIdempotency(ns: Env['IDEMPOTENCY']): (scopedKey: string) => IdempotencyStoreApi {
  return (scopedKey) => ns.get(ns.idFromName(`shard-${shardOf(scopedKey)}`));
}

/** FNV-1a: a stable, even spread of keys over the shards. */
export function shardOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % IDEMPOTENCY_SHARDS;
}

/** Whether a stored record has outlived every use (the sweep deletes it). */
export function expired(r: { at: number }, now = systemClock()): boolean {
  return now - r.at >= IDEMPOTENCY_TTL_MS;
}

/**
 * The request body's keyed hash (keyed-hash.ts), so a key reused for a different request is caught; a
 * link request's body holds a person's details, which a plain hash would let anyone confirm.
 */
export async function fingerprint(env: Env, ports: WithDevSecrets, text: string): Promise<string> {
  return keyedHash(env, ports, 'idempotency-body', text);
}
