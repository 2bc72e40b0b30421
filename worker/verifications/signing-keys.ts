/**
 * Result-token keys. `RESULT_SIGNING_KEYS` is a JSON array of private P-256
 * JWKs, each with a `kid`: the first signs, all are published at
 * `/.well-known/jwks.json`, so a new key is added second and moved first
 * once the JWKS max-age has passed (no token ever fails to verify during a
 * rotation). With the sandbox and no keys, a development key made on first
 * use (`kid` `sandbox-…`) signs; with a real vendor and no keys, /api is
 * misconfigured.
 */
import type { WithDevSecrets } from '../lib/dev-secrets';
import { config } from '../config';
import type { Env } from '../lib/env';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  /** The public half, as published. */
  publicJwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string; kid: string; use: 'sig'; alg: 'ES256' };
}

type PrivateJwk = JsonWebKey & { kid?: unknown };

function isPrivateP256(k: PrivateJwk | null): k is JsonWebKey & { kid: string } {
  return (
    k?.kty === 'EC' &&
    k.crv === 'P-256' &&
    typeof k.d === 'string' &&
    typeof k.x === 'string' &&
    typeof k.y === 'string' &&
    typeof k.kid === 'string' &&
    k.kid.length > 0
  );
}

/** The configured keys' JWKs, or undefined when unset, unreadable or with a repeated `kid` (never partly). */
export function configuredKeyJwks(env: Env): (JsonWebKey & { kid: string })[] | undefined {
  const raw = config(env).secrets.resultSigningKeys;
  if (!raw) return undefined;
  try {
    const list = JSON.parse(raw) as PrivateJwk[];
    if (!Array.isArray(list) || list.length === 0 || !list.every(isPrivateP256)) return undefined;
    // Two keys under one kid: a verifier could pick either; refused as misconfigured.
    if (new Set(list.map((k) => k.kid)).size !== list.length) return undefined;
    return list;
  } catch {
    return undefined;
  }
}

async function importKey(jwk: JsonWebKey & { kid: string }): Promise<SigningKey> {
  const { kty, crv, x, y, d } = jwk;
  const privateKey = await crypto.subtle.importKey('jwk', { kty, crv, x, y, d }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  return { kid: jwk.kid, privateKey, publicJwk: { kty: 'EC', crv: 'P-256', x: x!, y: y!, kid: jwk.kid, use: 'sig', alg: 'ES256' } };
}

/** Imported keys per configuration value (importing costs more than signing). */
const cache = new Map<string, Promise<SigningKey[]>>();

/** The signing keys in order (the first signs), or undefined when there are none to use. */
export async function signingKeys(env: Env, ports: WithDevSecrets): Promise<SigningKey[] | undefined> {
  const jwks = configuredKeyJwks(env);
  if (jwks) {
    const raw = config(env).secrets.resultSigningKeys!;
    let keys = cache.get(raw);
    if (!keys) {
      keys = Promise.all(jwks.map(importKey));
      cache.set(raw, keys);
      keys.catch(() => cache.delete(raw));
    }
    return keys;
  }
  if (config(env).secrets.resultSigningKeys || !config(env).vendor.sandbox) return undefined;
  const dev = await ports.devSecrets?.(env);
  if (!dev) return undefined;
  let keys = cache.get(dev.signingKey.kid);
  if (!keys) {
    keys = Promise.all([importKey(dev.signingKey)]);
    cache.set(dev.signingKey.kid, keys);
  }
  return keys;
}
