/**
 * Where a demo partner's webhook events go: its receiver inside the worker,
 * called in process. Plugged in by the entry that has the demo
 * (entry/local-app.ts); production has none, and its delivery path imports
 * no demo code.
 */
import type { Env } from '../lib/env';
import type { WebhookTarget } from './webhook-target';

export type DemoWebhooks = (
  env: Env,
  workerOrigin: string,
) => Promise<{ target: WebhookTarget; send: (url: string, init: RequestInit) => Promise<Response> }>;

let plugged: DemoWebhooks | undefined;

/** Called once by the entry that has the demo. */
export function useDemoWebhooks(d: DemoWebhooks): void {
  plugged = d;
}

/** The demo's webhooks, when this deployment has them. */
export const demoWebhooks = (): DemoWebhooks | undefined => plugged;
