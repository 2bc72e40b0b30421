#!/usr/bin/env node
// Builds <kyc-onboard>:
//   dist/widget/kyc-onboard.js  self-contained ES module for <script type="module" src>, lit inlined, minified: the entry
//   dist/widget/kyc-onboard-<name>-<hash>.js  chunks the entry imports on demand, from the same directory: the
//                               dictionaries other than English (fr, de, es, ar), and the Turnstile glue
//   dist/public/widget.js       the entry, served by the worker's static assets (dist/public is not wiped),
//   dist/public/kyc-onboard-*.js  with its chunks beside it
//   dist/npm/widget/*.js        npm build: one module per source file, lit external
//   dist/npm/widget/*.d.ts      type declarations (dist/npm/worker/contract.d.ts for the contract types)
//   custom-elements.json        custom-elements manifest generated from the class JSDoc
// `buildBundle()` is also used by the widget test runner (the size and CSP tests load the real bundle).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const at = (...p) => join(root, ...p);
const tsconfig = at('widget/tsconfig.json');

/** Minify the CSS in css`` literals, strip indentation in html`` ones (esbuild leaves template text as is). */
const minifyTemplates = {
  name: 'minify-templates',
  setup(b) {
    b.onLoad({ filter: /[\\/]widget[\\/].*\.ts$/ }, (args) => {
      let text = readFileSync(args.path, 'utf8');
      text = text.replace(
        /css`([^`]*)`/g,
        (_, body) =>
          'css`' +
          body
            .replace(/\/\*[\s\S]*?\*\//g, '')
            .replace(/\s+/g, ' ')
            .replace(/\s*([{};,>])\s*/g, '$1')
            .replace(/:\s+/g, ':')
            .replace(/;}/g, '}')
            .replace(/\b0\.(\d)/g, '.$1')
            .replace(/='([\w-]+)'/g, '=$1')
            .trim() +
          '`',
      );
      // Indentation goes; inside html`` a newline is just whitespace (and none is needed between tags or before `/>`).
      text = text
        .replace(/\n[ \t]+/g, '\n')
        .replace(/>\n</g, '><')
        .replace(/\n(\/?>)/g, '$1');
      return { contents: text, loader: 'ts' };
    });
  },
};

/**
 * The bundle's private copy of Lit must leave no globals on the partner page:
 * drop Lit's version registries (`globalThis.litHtmlVersions` & co., used only
 * to warn about several Lits on one page, which is exactly what an embed is).
 */
const noLitGlobals = {
  name: 'no-lit-globals',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/](lit-html|lit-element|@lit[\\/]reactive-element)[\\/][^\\/]+\.js$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replace(
        /\(\w+\.(?:litHtmlVersions|reactiveElementVersions|litElementVersions)\?\?=\[\]\)\.push\("[^"]*"\)/g,
        'void 0',
      ),
      loader: 'js',
    }));
  },
};

/**
 * Translations other than English ship as one string each (a chunk loaded on
 * first use), split at load time onto English's keys (saves the repeated key
 * names). The typed source objects
 * stay the truth: the build fails unless every key is in English's order.
 */
const packTranslations = {
  name: 'pack-translations',
  setup(b) {
    const entries = (file) => [...readFileSync(file, 'utf8').matchAll(/\n {2}(\w+): '((?:[^'\\]|\\.)*)',/g)].map((m) => [m[1], m[2]]);
    b.onLoad({ filter: /[\\/]widget[\\/]i18n[\\/](es|fr|de|ar)\.ts$/ }, (args) => {
      const keys = entries(at('widget/i18n/en.ts')).map(([k]) => k);
      const own = entries(args.path);
      const same = own.length === keys.length && own.every(([k], i) => k === keys[i]);
      if (!same) return { errors: [{ text: `${args.path}: keys must match widget/i18n/en.ts, in the same order` }] };
      const values = own.map(([, v]) => v.replace(/\\'/g, "'"));
      if (values.some((v) => v.includes('|'))) return { errors: [{ text: `${args.path}: a string contains "|"` }] };
      // Unpacked onto English's keys by widget/locale.ts; no import, so the chunk shares nothing with the entry.
      return { contents: `export default ${JSON.stringify(values.join('|'))};`, loader: 'js' };
    });
  },
};

/** The chunks next to an entry: `kyc-onboard-<name>-<hash>.js`. */
export const isChunk = (name) => /^kyc-onboard-.+\.js$/.test(name);
const chunksIn = (dir) => (existsSync(dir) ? readdirSync(dir).filter(isChunk) : []);

/** The self-contained script-tag bundle: the entry, and the chunks it loads on demand. */
export async function buildBundle() {
  for (const f of chunksIn(at('dist/widget'))) rmSync(at('dist/widget', f));
  await build({
    entryPoints: { 'kyc-onboard': at('widget/index.ts') },
    outdir: at('dist/widget'),
    // Dynamic imports become chunks beside the entry (imported relative to it: same origin, same CSP).
    splitting: true,
    chunkNames: 'kyc-onboard-[name]-[hash]',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    tsconfig,
    // Lit's BSD-3-Clause notices, once, instead of one block per module.
    legalComments: 'none',
    banner: { js: '/*! kyc-onboard | Lit (c) Google LLC, BSD-3-Clause */' },
    charset: 'utf8',
    // Private members (`_name`) get short names; lit's own code has no such properties.
    mangleProps: /^_[a-z]/,
    plugins: [packTranslations, minifyTemplates, noLitGlobals],
    logLevel: 'warning',
  });
  return at('dist/widget/kyc-onboard.js');
}

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [join(dir, d.name)] : [],
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
  const file = await buildBundle();
  mkdirSync(at('dist/public'), { recursive: true });
  copyFileSync(file, at('dist/public/widget.js'));
  for (const f of chunksIn(at('dist/public'))) rmSync(at('dist/public', f));
  for (const f of chunksIn(at('dist/widget'))) copyFileSync(at('dist/widget', f), at('dist/public', f));
  await buildNpm();
  buildManifest();
  console.log('[build-widget] dist/widget/kyc-onboard.js (+ chunks), dist/public/widget.js (+ chunks), dist/npm/, custom-elements.json');
}
