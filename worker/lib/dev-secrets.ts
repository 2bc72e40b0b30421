/**
 * Development secrets: what signs result tokens and sessions while the
 * sandbox is the vendor and the real secrets are unset (a result-signing key
 * with `kid` starting `sandbox-`, a session secret). A secret source is a
 * port (`devSecrets`, worker/ports.ts) the local stack fills
 * (worker/demo/dev-secrets.ts keeps them in a Durable Object); production
 * fills none, and its configuration guard asks for the real secrets instead.
 */
import type { Env } from './env';

export interface DevSecretValues {
  /** Private P-256 JWK with `kid`. */
  signingKey: JsonWebKey & { kid: string };
  sessionSecret: string;
}

export type DevSecretSource = (env: Env) => Promise<DevSecretValues>;

/** The part of the ports that holds the development secrets (absent: the deployment has none). */
export interface WithDevSecrets {
  devSecrets?: DevSecretSource;
}
