/**
 * Where a partner's webhook events go when it names no endpoint of its own: a
 * route the deployment plugs in, with the target to sign for and how to send
 * (the local stack's: the demo partners' receiver inside the worker, called in
 * process). Production plugs in none, so such events are skipped as
 * unconfigured.
 */
import type { Env } from '../lib/env';
import type { Partner } from '../partners/partner';
import type { WebhookTarget } from './webhook-target';

export interface WebhookRoute {
  target: WebhookTarget;
  send: (url: string, init: RequestInit) => Promise<Response>;
}

/** The route for `partner`'s events, or undefined where it has none. */
export type WebhookTransport = (env: Env, partner: Partner, workerOrigin: string) => Promise<WebhookRoute | undefined>;

let plugged: WebhookTransport | undefined;

/** Called once by the entry that has such routes (entry/local-app.ts). */
export function useWebhookTransport(t: WebhookTransport): void {
  plugged = t;
}

/** The plugged route for a partner without an endpoint of its own, if any. */
export async function pluggedWebhookRoute(env: Env, partner: Partner, workerOrigin: string): Promise<WebhookRoute | undefined> {
  return plugged?.(env, partner, workerOrigin);
}
