#!/usr/bin/env node
// The README's pinned script tag (between its `widget-integrity` markers) from
// dist/public/widget-integrity.json, which `npm run build` writes: the
// versioned entry's URL and its SRI hash are produced by the build, never typed.
//   node scripts/readme-integrity.mjs           rewrite the block
//   node scripts/readme-integrity.mjs --check   exit 1 when it does not match the build (npm test)
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './lib/generated.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const readme = join(root, 'README.md');
const record = join(root, 'dist/public/widget-integrity.json');
const BLOCK = /(<!-- widget-integrity:start[^>]*-->\n)([\s\S]*?)(<!-- widget-integrity:end -->)/;

export function block({ path, integrity }) {
  return [
    '```html',
    `<script type="module" src="https://kyc.example.com${path}"`,
    `  integrity="${integrity}" crossorigin="anonymous"></script>`,
    '```',
    '',
  ].join('\n');
}

if (!existsSync(record)) {
  console.error('dist/public/widget-integrity.json is missing: run `npm run build` first.');
  process.exit(1);
}
const text = readFileSync(readme, 'utf8');
if (!BLOCK.test(text)) {
  console.error('README.md has no <!-- widget-integrity:start --> … <!-- widget-integrity:end --> block.');
  process.exit(1);
}
const updated = text.replace(BLOCK, (_, start, _old, end) => start + block(JSON.parse(readFileSync(record, 'utf8'))) + end);
writeOrCheck(readme, updated, {
  root,
  source: 'dist/public/widget-integrity.json (the pinned script tag)',
  fix: 'npm run build && npm run docs',
});
