/**
 * What the demo receiver accepted, per verification: the sales demo shows it
 * next to each event ("signature verified"). Demo data, so it is kept by the
 * demo (its Durable Object, DEV_SECRETS), never on the verification record.
 * Nothing personal: ids, event types, statuses. Node tests, without the
 * binding, give the local app a store in memory (test/support/demo-deliveries.ts).
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

/** The deliveries in the demo's Durable Object (DEV_SECRETS). */
export function durableDemoDeliveries(env: Env): DemoDeliveries {
  const ns = env.DEV_SECRETS;
  if (!ns) throw new Error('DEV_SECRETS is not bound');
  const stub = ns.get(ns.idFromName('dev-secrets'));
  return { record: (id, d) => stub.recordDelivery(id, d), list: (id) => stub.deliveries(id) };
}
