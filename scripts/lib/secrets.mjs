// The secrets that are ours to make, one function each, shared by `npm run
// keygen` (scripts/keygen.mjs) and `npm run setup` (scripts/setup.mjs), so both
// make them the same way. Nothing here prints or logs a value.
import { webcrypto as crypto } from 'node:crypto';

const random = (n) => Buffer.from(crypto.getRandomValues(new Uint8Array(n)));
const today = () => new Date().toISOString().slice(0, 10);

/** A private P-256 JWK with a `kid`, for RESULT_SIGNING_KEYS (the worker signs result tokens with the first). */
export async function signingKey() {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const { kty, crv, x, y, d } = await crypto.subtle.exportKey('jwk', pair.privateKey);
  return { kty, crv, x, y, d, kid: `k-${today()}-${random(4).toString('hex')}` };
}

/** SESSION_SECRET: 32 random bytes, base64 (the worker wants at least 32 bytes). */
export const sessionSecret = () => random(32).toString('base64');

/** WEBHOOK_SECRET: `whsec_` + the base64 of 32 random bytes (Standard Webhooks). */
export const webhookSecret = () => `whsec_${random(32).toString('base64')}`;

/** A `/v1` server key: `kyc_sk_live_` (a real vendor) or `kyc_sk_test_` (the sandbox) + 32 random bytes, base64url. */
export const serverKey = (mode = 'live') => `kyc_sk_${mode}_${random(32).toString('base64url')}`;

/** A server key as the worker accepts it: its mode, or none (made before modes; still accepted, with a warning). */
export const SERVER_KEY = /^kyc_sk_(?:(live|test)_)?[A-Za-z0-9_-]{43}$/;

/**
 * PARTNER_SEALING_KEY: a private P-256 JWK (ECDH-ES) with a `kid`; its public
 * half goes into the registry (KV key `meta:sealing-public-key`), where
 * `npm run partners` seals partner secrets to it.
 */
export async function sealingKeyPair() {
  const pair = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
  const { kty, crv, x, y, d } = await crypto.subtle.exportKey('jwk', pair.privateKey);
  const kid = `seal-${today()}-${random(4).toString('hex')}`;
  return { privateJwk: { kty, crv, x, y, d, kid }, publicJwk: { kty, crv, x, y, kid } };
}
