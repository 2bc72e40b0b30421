/**
 * The local stack's development secrets: a result-signing key (`kid` starting
 * `sandbox-`) and a session secret (the secret source it plugs into the
 * product: lib/dev-secrets.ts), plus the demo's own: the webhook secret its
 * receiver checks and the demo partners' `/v1` server keys. Generated on first
 * use and kept in a Durable Object, so nothing committed to the repository can
 * sign. Used only while the sandbox is the vendor and the real secrets are
 * unset; with a real vendor, missing secrets are a 500 MISCONFIGURED instead.
 */
import type { DevSecretValues } from '../lib/dev-secrets';
import type { Env } from '../lib/env';
import { DEMO_PARTNERS } from './partners';
import { newServerKey } from '../server-api/keys';

export interface DemoSecretValues extends DevSecretValues {
  /** `whsec_…`: signs the webhooks the demo partners receive inside the worker. */
  demoWebhookSecret: string;
  /** The demo partners' `/v1` server keys (partnerId → `kyc_sk_…`). */
  demoServerKeys: Record<string, string>;
}

export const newDemoServerKeys = (): Record<string, string> => Object.fromEntries(DEMO_PARTNERS.map((d) => [d.id, newServerKey('test')]));

export const newWebhookSecret = () => `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;

export async function generateDevSecrets(): Promise<DemoSecretValues> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey('jwk', pair.privateKey)) as JsonWebKey;
  const random = crypto.getRandomValues(new Uint8Array(32));
  const hex = [...random].map((b) => b.toString(16).padStart(2, '0')).join('');
  return {
    signingKey: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, d: jwk.d, kid: `sandbox-${hex.slice(0, 12)}` },
    sessionSecret: hex,
    demoWebhookSecret: newWebhookSecret(),
    demoServerKeys: newDemoServerKeys(),
  };
}

/**
 * The values never change once made, so an isolate asks the object once.
 * Without the binding (node tests) one set per process stands in.
 */
// eslint-disable-next-line registries/no-dependency-registry -- a cache of the values, which never change once made
let memo: Promise<DemoSecretValues> | undefined;

export function devSecrets(env: Env): Promise<DemoSecretValues> {
  if (!memo) {
    const ns = env.DEV_SECRETS;
    memo = ns ? ns.get(ns.idFromName('dev-secrets')).values() : generateDevSecrets();
    memo.catch(() => (memo = undefined)); // a failed call is not remembered
  }
  return memo;
}
