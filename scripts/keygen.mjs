#!/usr/bin/env node
// `npm run keygen`: prints a new private P-256 JWK (with a `kid`) for
// RESULT_SIGNING_KEYS, as a one-element JSON array ready for
//   npm run -s keygen | wrangler secret put RESULT_SIGNING_KEYS
// `npm run keygen -- --add '<current RESULT_SIGNING_KEYS>'` prints the current
// keys with the new one added second (rotation: publish first, sign later).
// `npm run keygen -- --webhook-secret` prints a new `whsec_…` WEBHOOK_SECRET.
import { webcrypto as crypto } from 'node:crypto';

const args = process.argv.slice(2);

if (args.includes('--webhook-secret')) {
  console.log(`whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`);
  process.exit(0);
}

const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
const { kty, crv, x, y, d } = await crypto.subtle.exportKey('jwk', pair.privateKey);
const kid = `k-${new Date().toISOString().slice(0, 10)}-${Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString('hex')}`;
const key = { kty, crv, x, y, d, kid };

const at = args.indexOf('--add');
if (at >= 0) {
  let current;
  try {
    current = JSON.parse(args[at + 1] ?? '');
    if (!Array.isArray(current) || current.length === 0) throw new Error();
  } catch {
    console.error('--add takes the current RESULT_SIGNING_KEYS (a JSON array)');
    process.exit(2);
  }
  console.log(JSON.stringify([current[0], key, ...current.slice(1)]));
} else {
  console.log(JSON.stringify([key]));
}
console.error(`new key ${kid}: add it second, wait 5 minutes (the JWKS max-age), then move it first.`);
