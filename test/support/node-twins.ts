/**
 * In-memory twins of the worker's Durable Object stores, for node tests that
 * run the app without the Workers runtime (test/support/node-env.ts). The
 * worker keeps none: without its binding and without a twin injected here a
 * store answers 500 MISCONFIGURED. Each twin runs the worker's own rules
 * (VerificationLogic, IdempotencyRecords, takeFrom).
 */
import type { Env } from '../../worker/lib/env';
import { takeFrom, useAllowances, type Allowances } from '../../worker/lib/allowances';
import { IdempotencyRecords, useIdempotencyStore, type Record as IdempotencyRecord } from '../../worker/lib/idempotency';
import { useMemoryVerifications, type Verifications } from '../../worker/verifications/verification-store';
import { MemoryVerifications } from './memory-verifications';

/** Budgets in memory, per store (the LIMITS twin). */
export class MemoryAllowances implements Allowances {
  readonly budgets = new Map<string, Map<string, number>>();
  constructor(private readonly now: () => number = () => Date.now()) {}
  async take(key: string, id: string, until: number, max: number) {
    let b = this.budgets.get(key);
    if (!b) this.budgets.set(key, (b = new Map<string, number>()));
    return takeFrom(b, id, until, max, this.now());
  }
  async release(key: string, id: string) {
    this.budgets.get(key)?.delete(id);
  }
}

/** Idempotency records in memory (the IDEMPOTENCY twin), the last 10,000 kept. */
export function memoryIdempotency(): IdempotencyRecords {
  const memory = new Map<string, IdempotencyRecord>();
  return new IdempotencyRecords(
    async (k) => memory.get(k),
    async (k, r) => {
      memory.set(k, r);
      if (memory.size > 10_000) memory.delete(memory.keys().next().value!);
    },
    async (k) => void memory.delete(k),
  );
}

/** One set of records for every env, as a deployment's objects are shared by all its isolates. */
const sharedIdempotency = memoryIdempotency();

const twinned = new WeakSet<Env>();

/**
 * Injects the stores' twins for `env` once (a store given is used; the rest
 * are fresh per env, idempotency records shared): what requests carrying
 * `env` use in place of the Durable Objects.
 */
export function useNodeTwins(env: Env, given: { verifications?: Verifications; allowances?: Allowances } = {}): Env {
  if (given.verifications) useMemoryVerifications(env, given.verifications);
  if (given.allowances) useAllowances(env, given.allowances);
  if (twinned.has(env)) return env;
  twinned.add(env);
  if (!given.verifications) useMemoryVerifications(env, new MemoryVerifications(env));
  if (!given.allowances) useAllowances(env, new MemoryAllowances());
  useIdempotencyStore(env, sharedIdempotency);
  return env;
}

export { MemoryVerifications };
