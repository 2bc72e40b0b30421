/**
 * In-memory twins of the worker's Durable Object stores, for node tests that
 * run the app without the Workers runtime (test/support/node-env.ts). The
 * worker keeps none: without its binding and without a twin given here a
 * store answers 500 MISCONFIGURED. Each twin runs the worker's own rules
 * (VerificationLogic, IdempotencyRecords, takeFrom).
 *
 * The twins are ports (worker/ports.ts): `useNodeTwins(env, …)` says which
 * twins requests carrying `env` get, and the node apps (`nodeApp`,
 * `nodeProductApp` in test/support/node-app.ts) plug `twinsFor` into
 * createApp, as an entry plugs in its own.
 */
import type { Env } from '../../worker/lib/env';
import { PAUSE_ENTRY, pauseIn, takeFrom, type Allowances } from '../../worker/lib/allowances';
import { IdempotencyRecords, type IdempotencyStoreApi, type Record as IdempotencyRecord } from '../../worker/lib/idempotency';
import type { Plugins, Ports, Verifications } from '../../worker/ports';
import { portsFor } from '../../worker/ports-for';
import { localPlugins } from '../../worker/entry/local-app';
import type { DemoDeliveries } from '../../worker/demo/deliveries';
import { MemoryVerifications } from './memory-verifications';
import { MemoryDemoDeliveries } from './demo-deliveries';

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
  async pause(key: string, until: number) {
    let b = this.budgets.get(key);
    if (!b) this.budgets.set(key, (b = new Map<string, number>()));
    return pauseIn(b, until, this.now());
  }
  async pausedUntil(key: string) {
    const until = this.budgets.get(key)?.get(PAUSE_ENTRY);
    return until !== undefined && until > this.now() ? until : undefined;
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

interface Twins {
  verifications: Verifications;
  allowances: Allowances;
  idempotency: (scopedKey: string) => IdempotencyStoreApi;
  deliveries: DemoDeliveries;
}

const twins = new WeakMap<Env, Twins>();

export interface GivenTwins {
  verifications?: Verifications;
  allowances?: Allowances;
  idempotency?: IdempotencyStoreApi;
  /** The demo receiver's store (the local app only). */
  deliveries?: DemoDeliveries;
  /** What the memory verifications' own ports plug in (their alarms ask the vendor through them): the local stack's by default. */
  plugins?: Plugins;
}

/**
 * The twins requests carrying `env` get (a twin given is used; the rest are
 * fresh per env, idempotency records shared), set once per env and replaced
 * by what a later call gives.
 */
export function useNodeTwins(env: Env, given: GivenTwins = {}): Env {
  const had = twins.get(env);
  const t: Twins = {
    verifications: given.verifications ?? had?.verifications ?? new MemoryVerifications(env),
    allowances: given.allowances ?? had?.allowances ?? new MemoryAllowances(),
    idempotency: given.idempotency ? () => given.idempotency! : (had?.idempotency ?? (() => sharedIdempotency)),
    deliveries: given.deliveries ?? had?.deliveries ?? new MemoryDemoDeliveries(),
  };
  twins.set(env, t);
  if (t.verifications instanceof MemoryVerifications && (!t.verifications.ports || given.plugins || given.allowances)) {
    const plugins = given.plugins ?? localPlugins(() => t.deliveries);
    t.verifications.ports = portsFor(env, { ...plugins, ...storesOf(t) });
  }
  return env;
}

const storesOf = (t: Twins): Partial<Ports> => ({ verifications: t.verifications, allowances: t.allowances, idempotency: t.idempotency });

/** The stores' twins for `env` (given to it by useNodeTwins, or fresh): a node app's `ports`. */
export function twinsFor(env: Env): Partial<Ports> {
  if (!twins.has(env)) useNodeTwins(env);
  return storesOf(twins.get(env)!);
}

/** The demo receiver's twin for `env`: the node local app's `deliveries`. */
export function deliveriesFor(env: Env): DemoDeliveries {
  if (!twins.has(env)) useNodeTwins(env);
  return twins.get(env)!.deliveries;
}

export { MemoryVerifications };
