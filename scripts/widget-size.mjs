#!/usr/bin/env node
// Prints the gzip and brotli sizes of the self-contained widget bundle and exits 1 over budget.
//   npm run size:widget            (after npm run build:widget)
// Budget: 16 KB gzip = 16,384 bytes (stretch goal: 12 KB). The widget test suite enforces the same limit.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export const BUDGET_GZIP = 16 * 1024;
export const STRETCH_GZIP = 12 * 1024;
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
      `(budget ${BUDGET_GZIP} B gzip, stretch ${STRETCH_GZIP} B): ${over ? 'OVER BUDGET' : 'ok'}`,
  );
  process.exit(over ? 1 : 0);
}
