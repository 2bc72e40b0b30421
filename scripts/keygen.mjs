#!/usr/bin/env node
// `npm run keygen`: prints a new private P-256 JWK (with a `kid`) for
// RESULT_SIGNING_KEYS, as a one-element JSON array ready for
//   npm run -s keygen | npx wrangler secret put RESULT_SIGNING_KEYS --env production
// (`npm run setup -- --env production` does that for a first deployment).
// `npm run keygen -- --add <file>` (or `--add` alone: standard input) reads the
// current RESULT_SIGNING_KEYS and prints them with the new one added second
// (rotation: publish first, sign later). Private keys never go on the
// command line, where `ps` and the shell history would show them.
// `npm run keygen -- --webhook-secret` prints a new `whsec_…` WEBHOOK_SECRET.
import { readFileSync } from 'node:fs';
import { signingKey, webhookSecret } from './lib/secrets.mjs';

const args = process.argv.slice(2);

if (args.includes('--webhook-secret')) {
  console.log(webhookSecret());
  process.exit(0);
}

const key = await signingKey();

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
  console.error(
    `new key ${key.kid}, added second: put this as RESULT_SIGNING_KEYS, wait 5 minutes (the JWKS max-age), then move it first.`,
  );
} else {
  console.log(JSON.stringify([key]));
  // A first key: nothing was published before it, so it signs at once (no waiting).
  console.error(`new key ${key.kid}: the first RESULT_SIGNING_KEYS; it signs as soon as it is set. (To rotate later: --add.)`);
}
