/**
 * Server keys of the partner's server API (`/v1`): `kyc_sk_` + 32 random
 * bytes in base64url. The worker never keeps a key, only its SHA-256
 * (lower-case hex): a registry partner's record holds up to two hashes (a
 * rotation's overlap), the environment's partner has its keys in the secret
 * PARTNER_SERVER_KEYS, the demo partners have development keys made on first
 * use. Pure functions with WebCrypto only, so `npm run partners` uses the same
 * code as the worker.
 */
import { base64url } from '../../rules/base64url';

export const SERVER_KEY_PREFIX = 'kyc_sk_';
/** `kyc_sk_` and 43 base64url characters (32 bytes, no padding). */
export const SERVER_KEY = /^kyc_sk_[A-Za-z0-9_-]{43}$/;

/** A new server key (shown once, never stored). */
export function newServerKey(): string {
  return SERVER_KEY_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** SHA-256 of the key's text, lower-case hex: what is kept. */
export async function serverKeyHash(key: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Compares two hashes in time that does not depend on where they differ. */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Whether `hash` is one of `hashes`; every candidate is compared (no early exit that would time the position). */
export function hashIn(hash: string, hashes: readonly string[]): boolean {
  let found = false;
  for (const h of hashes) found = sameHash(hash, h) || found;
  return found;
}

/** The bearer token of an `Authorization` header, when it has the shape of a server key. */
export function bearerKey(header: string | undefined | null): string | undefined {
  const m = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header ?? '');
  return m && SERVER_KEY.test(m[1]!) ? m[1] : undefined;
}
