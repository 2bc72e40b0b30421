/**
 * Server keys of the partner's server API (`/v1`): `kyc_sk_test_` (a
 * deployment whose vendor is the sandbox) or `kyc_sk_live_` (a real vendor)
 * + 32 random bytes in base64url, so a key says its mode, as Stripe's do. Keys
 * made before the mode prefix (`kyc_sk_` + 43) keep working until rotated. The worker never keeps a key, only its SHA-256
 * (lower-case hex): a registry partner's record holds up to two hashes (a
 * rotation's overlap), the environment's partner has its keys in the secret
 * PARTNER_SERVER_KEYS, the demo partners have development keys made on first
 * use. Pure functions with WebCrypto only, so `npm run partners` uses the same
 * code as the worker.
 */
import { base64url } from '../../rules/base64url';

export type KeyMode = 'test' | 'live';
/** `kyc_sk_`, the mode (`test_`, `live_`, or none for a key made before modes), 43 base64url characters (32 bytes, no padding). */
export const SERVER_KEY = /^kyc_sk_(?:(test|live)_)?[A-Za-z0-9_-]{43}$/;

/** The mode a key says, or `undefined` for a key made before modes. */
export const keyMode = (key: string): KeyMode | undefined => SERVER_KEY.exec(key)?.[1] as KeyMode | undefined;

/** A new server key of a mode (shown once, never stored). */
export function newServerKey(mode: KeyMode): string {
  return `kyc_sk_${mode}_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
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
