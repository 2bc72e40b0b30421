/**
 * Where a partner's webhook events go: its endpoint and `whsec_` secret (the
 * environment's WEBHOOK_URL / WEBHOOK_SECRET for the environment's and the
 * demo partners). A URL that breaks the webhook rules (`partners/partner.ts`)
 * or a secret that is not `whsec_` + base64 means no delivery, logged.
 */
import { config } from '../config';
import type { Env } from '../lib/env';
import { isLoopbackHost } from '../lib/origins';
import type { Partner } from '../partners/partner';
import { webhookUrlProblem } from '../../rules/webhook-url';

export interface WebhookTarget {
  url: string;
  /** The HMAC key, decoded from `whsec_…`. */
  key: Uint8Array;
}

export function decodeWebhookSecret(secret: string): Uint8Array | undefined {
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret.trim());
  if (!m) return undefined;
  try {
    const bin = atob(m[1]!);
    return bin.length >= 16 ? Uint8Array.from(bin, (ch) => ch.charCodeAt(0)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The target for a partner's events, or undefined when none is configured (or
 * it is unusable). Loopback and private addresses are allowed only while the
 * sandbox is the vendor of a worker on a loopback host (a laptop), never for
 * a deployed sandbox demo.
 */
export function webhookTarget(
  env: Env,
  partner: Pick<Partner, 'webhookUrl' | 'webhookSecret'> | undefined,
  workerOrigin: string,
): WebhookTarget | undefined {
  const url = partner?.webhookUrl?.trim();
  const key = partner?.webhookSecret ? decodeWebhookSecret(partner.webhookSecret) : undefined;
  if (!url || !key || webhookUrlProblem(url, localSandbox(env, workerOrigin))) return undefined;
  return { url, key };
}

/** The sandbox is the vendor of a worker on a loopback host. */
export function localSandbox(env: Env, workerOrigin: string): boolean {
  try {
    return config(env).vendor.sandbox && isLoopbackHost(new URL(workerOrigin).hostname);
  } catch {
    return false;
  }
}
