/**
 * Where a partner's webhook events go: its endpoint and `whsec_` secret (the
 * environment's WEBHOOK_URL / WEBHOOK_SECRET for the environment's and the
 * demo partners). A URL that breaks the webhook rules (`partners/partner.ts`)
 * or a secret that is not `whsec_` + base64 means no delivery, logged.
 */
import { usesSandbox, type Env } from '../lib/env';
import { webhookUrlProblem, type Partner } from '../partners/partner';

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

/** The target for a partner's events, or undefined when none is configured (or it is unusable). */
export function webhookTarget(env: Env, partner: Pick<Partner, 'webhookUrl' | 'webhookSecret'> | undefined): WebhookTarget | undefined {
  const url = partner?.webhookUrl?.trim();
  const key = partner?.webhookSecret ? decodeWebhookSecret(partner.webhookSecret) : undefined;
  if (!url || !key || webhookUrlProblem(url, usesSandbox(env))) return undefined;
  return { url, key };
}
