#!/usr/bin/env node
// `npm run keygen`: prints a new private P-256 JWK (with a `kid`) for
// RESULT_SIGNING_KEYS, as a one-element JSON array ready for
//   npm run -s keygen | wrangler secret put RESULT_SIGNING_KEYS
// `npm run keygen -- --add <file>` (or `--add` alone: standard input) reads the
// current RESULT_SIGNING_KEYS and prints them with the new one added second
// (rotation: publish first, sign later). Private keys never go on the
// command line, where `ps` and the shell history would show them.
// `npm run keygen -- --webhook-secret` prints a new `whsec_…` WEBHOOK_SECRET.
import { webcrypto as crypto } from 'node:crypto';
import { readFileSync } from 'node:fs';

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
  const from = args[at + 1];
  if (from?.trim().startsWith('[')) {
    console.error('--add reads the current keys from a file or standard input, never from the command line (ps shows it)');
    process.exit(2);
  }
  let current;
  try {
    current = JSON.parse(readFileSync(from && !from.startsWith('--') ? from : 0, 'utf8'));
    if (!Array.isArray(current) || current.length === 0) throw new Error();
  } catch {
    console.error('--add reads the current RESULT_SIGNING_KEYS (a JSON array) from the file named, or standard input');
    process.exit(2);
  }
  console.log(JSON.stringify([current[0], key, ...current.slice(1)]));
} else {
  console.log(JSON.stringify([key]));
}
console.error(`new key ${kid}: add it second, wait 5 minutes (the JWKS max-age), then move it first.`);
