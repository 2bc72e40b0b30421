#!/usr/bin/env node
// Builds <kyc-onboard>:
//   dist/widget/kyc-onboard.js  self-contained ES module for <script type="module" src>, lit inlined, minified: the entry
//   dist/widget/kyc-onboard-<name>-<hash>.js  chunks the entry imports on demand, from the same directory: the
//                               dictionaries other than English (47, one file each), the run and the Turnstile glue
//   dist/public/i18n/pages/<lang>.json  the phone pages' dictionaries (static assets the worker reads)
//   dist/public/widget.js       the entry, served by the worker's static assets (dist/public is not wiped),
//   dist/public/kyc-onboard-*.js  with its chunks beside it
//   dist/npm/widget/*.js        npm build: one module per source file, lit external
//   dist/npm/widget/*.d.ts      type declarations (dist/npm/worker/contract.d.ts for the contract types)
//   custom-elements.json        custom-elements manifest generated from the class JSDoc
// `buildBundle()` is also used by the widget test runner (the size and CSP tests load the real bundle).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkAll, widgetDictionaries } from './lib/dictionaries.mjs';
import { scriptTagOptions } from './lib/widget-esbuild.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const at = (...p) => join(root, ...p);
const tsconfig = at('widget/tsconfig.json');

/**
 * Dictionaries other than English: each is written beside the entry as
 * `kyc-onboard-<code>-<hash>.js`, an ES module whose default export is the
 * dictionary object (keys in English's order). `<hash>` is one hash of the
 * whole set, so the entry names exact files with one constant: the entry
 * replaces widget/dictionary.ts with a computed import of that name, and its
 * size does not grow with the number of languages. The dictionaries are
 * checked first (scripts/lib/dictionaries.mjs): a missing key, a changed
 * placeholder or an English leftover fails the build.
 */
async function dictionaryFiles() {
  const problems = await checkAll();
  if (problems.length) throw new Error(`[build-widget] the dictionaries are not complete:\n  ${problems.join('\n  ')}`);
  const dicts = await widgetDictionaries();
  const keys = Object.keys(dicts.find((d) => d.code === 'en').strings);
  const files = dicts
    .filter((d) => d.code !== 'en')
    .map((d) => ({ code: d.code, text: `export default ${JSON.stringify(Object.fromEntries(keys.map((k) => [k, d.strings[k]])))};\n` }));
  const digest = createHash('sha256');
  for (const f of files) digest.update(`${f.code}\0${f.text}\0`);
  const hash = base32(digest.digest()).slice(0, 8);
  return { hash, files: files.map((f) => ({ name: `kyc-onboard-${f.code}-${hash}.js`, text: f.text })) };
}

const base32 = (buf) => {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += abc[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
};

/** widget/dictionary.ts in the bundle: the URL of a dictionary file beside the entry (through a function, so esbuild leaves it alone). */
const dictionaryUrls = (hash) => ({
  name: 'dictionary-urls',
  setup(b) {
    b.onLoad({ filter: /[\\/]widget[\\/]dictionary\.ts$/ }, () => ({
      contents: `const load = (url) => import(url);\nexport const loadDictionary = (code) => load("./kyc-onboard-" + code + "-${hash}.js");\n`,
      loader: 'js',
    }));
  },
});

/** The chunks next to an entry: `kyc-onboard-<name>-<hash>.js`. */
export const isChunk = (name) => /^kyc-onboard-.+\.js$/.test(name);
const chunksIn = (dir) => (existsSync(dir) ? readdirSync(dir).filter(isChunk) : []);

/** The self-contained script-tag bundle: the entry, and the chunks it loads on demand. */
export async function buildBundle() {
  for (const f of chunksIn(at('dist/widget'))) rmSync(at('dist/widget', f));
  const dictionaries = await dictionaryFiles();
  mkdirSync(at('dist/widget'), { recursive: true });
  for (const f of dictionaries.files) writeFileSync(at('dist/widget', f.name), f.text);
  await build({
    ...scriptTagOptions({ name: 'kyc-onboard', tsconfig, plugins: [dictionaryUrls(dictionaries.hash)] }),
    entryPoints: { 'kyc-onboard': at('widget/index.ts') },
    outdir: at('dist/widget'),
    // Dynamic imports become chunks beside the entry (imported relative to it: same origin, same CSP).
    splitting: true,
    chunkNames: 'kyc-onboard-[name]-[hash]',
  });
  return at('dist/widget/kyc-onboard.js');
}

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [join(dir, d.name)] : [],
  );
}

/**
 * The npm build's widget/dictionary.js: one literal `import()` per language, which every bundler (Vite, webpack,
 * Rollup, esbuild, Parcel) turns into a chunk of its own. A computed path is not enough there: Vite leaves a
 * template import inside node_modules alone, and the app would then ask its own server for `./i18n/<tag>.js`.
 */
async function npmDictionaryLoader() {
  const codes = (await widgetDictionaries()).map((d) => d.code).filter((c) => c !== 'en');
  const entries = codes.map((c) => `  ${JSON.stringify(c)}: () => import(${JSON.stringify(`./i18n/${c}.js`)}),`).join('\n');
  writeFileSync(
    at('dist/npm/widget/dictionary.js'),
    `// Generated by scripts/build-widget.mjs (the npm build): one literal import per language, a chunk each in the app's bundle.\n` +
      `const dictionaries = {\n${entries}\n};\n` +
      `export const loadDictionary = (code) =>\n` +
      `  Object.hasOwn(dictionaries, code) ? dictionaries[code]() : Promise.reject(new Error(\`kyc-onboard: no dictionary for \${code}\`));\n`,
  );
}

/** The npm build: lit stays external (the app's bundler dedupes it), with .d.ts next to each module. */
export async function buildNpm() {
  rmSync(at('dist/npm'), { recursive: true, force: true });
  await build({
    // The widget's modules and the field rules it shares with the worker.
    entryPoints: [...sources(at('widget')), ...sources(at('rules'))],
    outdir: at('dist/npm'),
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    tsconfig,
    logLevel: 'warning',
  });
  await npmDictionaryLoader();
  execFileSync(
    process.execPath,
    [
      at('node_modules/typescript/bin/tsc'),
      '-p',
      tsconfig,
      '--noEmit',
      'false',
      '--declaration',
      '--emitDeclarationOnly',
      '--rootDir',
      root,
      '--outDir',
      at('dist/npm'),
    ],
    { stdio: 'inherit', cwd: root },
  );
}

/** custom-elements.json from the JSDoc of the class (`@fires @slot @csspart @cssprop`). */
export function buildManifest() {
  execFileSync(
    process.execPath,
    [
      at('node_modules/@custom-elements-manifest/analyzer/cem.js'),
      'analyze',
      '--litelement',
      '--globs',
      'widget/kyc-onboard.ts',
      'widget/define.ts',
      'widget/events.ts',
      '--outdir',
      '.',
    ],
    { stdio: 'inherit', cwd: root },
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = await buildBundle().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
  mkdirSync(at('dist/public'), { recursive: true });
  copyFileSync(file, at('dist/public/widget.js'));
  for (const f of chunksIn(at('dist/public'))) rmSync(at('dist/public', f));
  for (const f of chunksIn(at('dist/widget'))) copyFileSync(at('dist/widget', f), at('dist/public', f));
  // The phone pages' dictionaries, read by the worker through its ASSETS binding (worker/handoff/page-strings.ts).
  rmSync(at('dist/public/i18n/pages'), { recursive: true, force: true });
  mkdirSync(at('dist/public/i18n/pages'), { recursive: true });
  for (const f of readdirSync(at('worker/handoff/page-strings')).filter((f) => f.endsWith('.json') && f !== 'same-as-english.json'))
    copyFileSync(at('worker/handoff/page-strings', f), at('dist/public/i18n/pages', f));
  // Served by the worker through ASSETS, kept out of its bundle: the /ops stylesheet (worker/ops/routes.ts).
  mkdirSync(at('dist/public/ops'), { recursive: true });
  copyFileSync(at('worker/ops/ops.css'), at('dist/public/ops/ops.css'));
  await buildNpm();
  buildManifest();
  console.log('[build-widget] dist/widget/kyc-onboard.js (+ chunks), dist/public/widget.js (+ chunks), dist/npm/, custom-elements.json');
}
