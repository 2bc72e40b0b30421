/**
 * Development secrets: what signs result tokens and sessions while the
 * sandbox is the vendor and the real secrets are unset (a result-signing key
 * with `kid` starting `sandbox-`, a session secret). A secret source the
 * deployment plugs in: the local stack's keeps them in a Durable Object
 * (worker/demo/dev-secrets.ts); a deployment that plugs in none (production)
 * has none, and its configuration guard asks for the real secrets instead.
 */
import type { Env } from './env';

export interface DevSecretValues {
  /** Private P-256 JWK with `kid`. */
  signingKey: JsonWebKey & { kid: string };
  sessionSecret: string;
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
