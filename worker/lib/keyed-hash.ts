/**
 * The one way the worker names an identifier it must not keep in clear (a
 * phone number, a client address, a request body with a person's details):
 * HMAC-SHA256 under a key of this deployment. A plain SHA-256 of a phone
 * number is a lookup table away from the number (the national number range
 * is small); without the key, the stored value says nothing.
 *
 * The key is derived from the session secret (HKDF-SHA256 with its own
 * label), so no new setting is needed and no other secret can be recovered
 * from it. Rotating SESSION_SECRET changes every keyed hash: budgets counted
 * under the old key start again (holds already taken are released by the
 * names they were taken under, so none is left behind).
 */
import { sessionSecret } from './session-secret';
import type { Env } from './env';
import type { WithDevSecrets } from './dev-secrets';
import { ApiError } from './errors';

const LABEL = 'kyc-onboard identifier hash v1';
const encoder = new TextEncoder();

/** Derived keys per secret, per isolate (the derivation is the costly part). */
const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey'])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info: encoder.encode(LABEL) },
          base,
          { name: 'HMAC', hash: 'SHA-256', length: 256 },
          false,
          ['sign'],
        ),
      );
    keys.clear(); // one secret at a time: a rotation replaces it
    keys.set(secret, key);
  }
  return key;
}

/** HMAC-SHA256 of `kind subject` under the deployment's identifier key, lower-case hex of its first `bytes` bytes. */
export async function keyedHash(env: Env, ports: WithDevSecrets, kind: string, subject: string, bytes = 32): Promise<string> {
  const secret = await sessionSecret(env, ports);
  // The configuration guard refuses a deployment without one before any route hashes.
  if (!secret) throw new ApiError(500, 'MISCONFIGURED', 'The service is misconfigured. The operator has to fix its settings.');
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await keyFor(secret), encoder.encode(`${kind} ${subject}`)));
  return [...mac.slice(0, bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
