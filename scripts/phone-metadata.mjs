#!/usr/bin/env node
// `node scripts/phone-metadata.mjs [--check]`: writes worker/lib/phone-metadata.json,
// libphonenumber-js's "mobile" metadata without its number formats (how to
// print a number nationally, which parsing and validation never read: about
// 9 KB gzip of the production bundle). Everything parsing and validation use
// (calling codes, prefixes, possible lengths, the mobile patterns) is kept
// as is; test/worker/phone-metadata.test.ts checks that numbers parse and
// validate the same under both. Run it again after updating libphonenumber-js
// (`--check` fails when the file is out of date: part of the worker tests).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'worker/lib/phone-metadata.json');
/** A country's metadata is a positional array; its number formats are at this index (libphonenumber-js metadata v4). */
const FORMATS = 4;

export function phoneMetadata() {
  const require = createRequire(import.meta.url);
  const full = JSON.parse(readFileSync(require.resolve('libphonenumber-js/metadata.mobile.json'), 'utf8'));
  const trimmed = structuredClone(full);
  for (const group of [trimmed.countries, trimmed.nonGeographic ?? {}]) {
    for (const country of Object.values(group)) if (Array.isArray(country) && country.length > FORMATS) country[FORMATS] = 0;
  }
  return JSON.stringify(trimmed) + '\n';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const next = phoneMetadata();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(OUT, 'utf8');
    } catch {
      /* missing */
    }
    // Compared as data: a reformatted file with the same content is up to date.
    let same;
    try {
      same = JSON.stringify(JSON.parse(current)) === JSON.stringify(JSON.parse(next));
    } catch {
      same = false;
    }
    if (!same) {
      console.error('worker/lib/phone-metadata.json is out of date: run `node scripts/phone-metadata.mjs`');
      process.exit(1);
    }
    console.log('worker/lib/phone-metadata.json matches libphonenumber-js');
  } else {
    writeFileSync(OUT, next);
    console.log(`wrote worker/lib/phone-metadata.json (${next.length} bytes)`);
  }
}
