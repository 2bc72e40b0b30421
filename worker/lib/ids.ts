/**
 * ULIDs (request ids, verification ids): 48 bits of milliseconds and 80
 * random bits, in Crockford's base32, 26 characters, sortable by time. A few
 * lines with WebCrypto in place of the `ulid` package in the worker's bundle
 * (the sandbox, local only, keeps the package).
 */
import { systemClock } from './clock';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function ulid(now = systemClock()): string {
  let time = '';
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = ALPHABET.charAt(t % 32) + time;
  let random = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(16))) random += ALPHABET.charAt(byte & 31);
  return time + random;
}
