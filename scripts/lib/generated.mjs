// A file the build generates and the repository keeps: written, or with
// `--check` (npm test) compared, failing with how to bring it up to date.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * @param {string} path the generated file
 * @param {string} text what it should hold
 * @param {{ root: string, source: string, fix: string }} how what it is generated from, and the commands that regenerate it
 */
export function writeOrCheck(path, text, { root, source, fix }) {
  const name = relative(root, path);
  if (!process.argv.includes('--check')) {
    writeFileSync(path, text);
    console.log(`[generated] ${name}`);
    return;
  }
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    /* missing: not up to date */
  }
  if (current !== text) {
    console.error(`${name} is not up to date with ${source}. Run \`${fix}\` and commit it.`);
    process.exit(1);
  }
  console.log(`${name} is up to date with ${source}`);
}
