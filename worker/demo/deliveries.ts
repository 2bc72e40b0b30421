/**
 * What the demo receiver accepted, per verification: the sales demo shows it
 * next to each event ("signature verified"). Demo data, so it is kept by the
 * demo (its Durable Object, DEV_SECRETS), never on the verification record.
 * Nothing personal: ids, event types, statuses. Without the binding (node
 * tests) the test injects a store (test/support/demo-deliveries.ts).
 */
import type { Env } from '../lib/env';
import type { DemoDelivery } from './delivery';

export type { DemoDelivery } from './delivery';

/** Per verification, the last deliveries kept. */
export const DELIVERIES_KEPT = 10;
/** Verifications whose deliveries are kept (the oldest go first: verification ids sort by time). */
export const VERIFICATIONS_KEPT = 500;

/** `list` plus `d` (one already there, by webhook-id: a retry or a replay, is ignored), the last few kept. */
export function withDelivery(list: DemoDelivery[], d: DemoDelivery): DemoDelivery[] | undefined {
  if (list.some((x) => x.webhookId === d.webhookId)) return undefined;
  return [...list, d].slice(-DELIVERIES_KEPT);
}

export interface DemoDeliveries {
  record(verificationId: string, d: DemoDelivery): Promise<void>;
  list(verificationId: string): Promise<DemoDelivery[]>;
}

const injected = new WeakMap<Env, DemoDeliveries>();

/** Node tests (no Durable Object binding): the store the receiver uses for `env`. */
export function useDemoDeliveries(env: Env, store: DemoDeliveries): void {
  injected.set(env, store);
}

export function demoDeliveries(env: Env): DemoDeliveries {
  const ns = env.DEV_SECRETS;
  if (ns) {
    const stub = ns.get(ns.idFromName('dev-secrets'));
    return { record: (id, d) => stub.recordDelivery(id, d), list: (id) => stub.deliveries(id) };
  }
  const store = injected.get(env);
  if (!store) throw new Error('DEV_SECRETS is not bound');
  return store;
}
