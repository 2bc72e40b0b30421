#!/usr/bin/env node
// `node scripts/production-assets.mjs`: dist/production-public, the static
// assets of a production deployment (wrangler.toml's [env.production]): the
// widget's files from dist/public, without the sales demo's page and assets.
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** What only the sales demo uses. */
const DEMO_ONLY = new Set(['index.html', 'demo-assets']);

export function prepareProductionAssets() {
  const from = join(ROOT, 'dist/public');
  const to = join(ROOT, 'dist/production-public');
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true }); // wrangler refuses to start without the directory, even empty
  if (existsSync(from)) {
    cpSync(from, to, { recursive: true, filter: (src) => !DEMO_ONLY.has(relative(from, src).split(/[\\/]/)[0]) });
  }
  return to;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  prepareProductionAssets();
  console.log('[production-assets] dist/production-public (the widget without the demo)');
}
