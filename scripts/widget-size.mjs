#!/usr/bin/env node
// Prints the gzip and brotli sizes of the widget's entry (what a page loads before the person does anything)
// and of each chunk it may load later, and exits 1 when the entry is over budget.
//   npm run size:widget            (after npm run build:widget)
// Budget: 12 KB gzip = 12,288 bytes for the entry. The widget test suite enforces the same limit.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export const BUDGET_GZIP = 12 * 1024;
export const bundlePath = fileURLToPath(new URL('../dist/widget/kyc-onboard.js', import.meta.url));

/** Sizes in bytes: raw, gzip (level 9) and brotli (quality 11). */
export function measure(file = bundlePath) {
  const code = readFileSync(file);
  return {
    raw: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

/** The chunks beside the entry (`kyc-onboard-<name>-<hash>.js`), each with its sizes. */
export function measureChunks(file = bundlePath) {
  const dir = dirname(file);
  return readdirSync(dir)
    .filter((f) => /^kyc-onboard-.+\.js$/.test(f))
    .sort()
    .map((f) => ({ file: f, ...measure(join(dir, f)) }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let size;
  try {
    size = measure();
  } catch {
    console.error(`[size:widget] ${bundlePath} is missing: run npm run build:widget first`);
    process.exit(1);
  }
  const over = size.gzip > BUDGET_GZIP;
  console.log(
    `dist/widget/kyc-onboard.js  raw ${size.raw} B  gzip ${size.gzip} B  brotli ${size.brotli} B  ` +
      `(entry budget ${BUDGET_GZIP} B gzip): ${over ? 'OVER BUDGET' : 'ok'}`,
  );
  for (const c of measureChunks()) console.log(`  chunk ${c.file}  raw ${c.raw} B  gzip ${c.gzip} B  brotli ${c.brotli} B`);
  process.exit(over ? 1 : 0);
}
