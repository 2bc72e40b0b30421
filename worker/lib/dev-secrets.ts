/**
 * Development secrets: what signs result tokens and sessions while the
 * sandbox is the vendor and the real secrets are unset (a result-signing key
 * with `kid` starting `sandbox-`, a session secret, the demo receiver's
 * webhook secret). The local stack plugs in where they come from
 * (worker/demo/dev-secrets.ts, a Durable Object); a deployment that plugs in
 * nothing (production) has none, and its configuration guard asks for the
 * real secrets instead.
 */
import type { Env } from './env';

export interface DevSecretValues {
  /** Private P-256 JWK with `kid`. */
  signingKey: JsonWebKey & { kid: string };
  sessionSecret: string;
  /** `whsec_…`: signs the webhooks the demo partners receive inside the worker. */
  demoWebhookSecret: string;
  /** The demo partners' `/v1` server keys (partnerId → `kyc_sk_…`). */
  demoServerKeys: Record<string, string>;
}

export type DevSecretSource = (env: Env) => Promise<DevSecretValues>;

let source: DevSecretSource | undefined;

/** Called once by the entry that has development secrets (entry/local-app.ts). */
export function useDevSecrets(s: DevSecretSource): void {
  source = s;
}

/** The development secrets, or undefined in a deployment without them. */
export async function devSecrets(env: Env): Promise<DevSecretValues | undefined> {
  return source?.(env);
}
