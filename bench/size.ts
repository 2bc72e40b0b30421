/**
 * Items 1 and 4: bytes. The widget's self-contained bundle next to a minimal
 * Lit element bundled the same way, and the worker bundle as
 * `wrangler deploy --dry-run` produces it, with what it is made of.
 */
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { ROOT } from '../test/support/wrangler';

/** The entry (`dist/widget/kyc-onboard.js`); its chunks load on demand and are not counted. */
export const WIDGET_GZIP_BUDGET = 12 * 1024;
export const WORKER_GZIP_AIM = 100 * 1024;

export interface Sizes {
  rawBytes: number;
  gzipBytes: number;
  brotliBytes: number;
}

export function sizesOf(buf: Buffer): Sizes {
  return {
    rawBytes: buf.length,
    gzipBytes: gzipSync(buf, { level: 9 }).length,
    brotliBytes: brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

/**
 * Copies of scripts/build-widget.mjs's plugins (it does not export them), so
 * the floor is bundled exactly like the widget: minified css`` text and
 * html`` whitespace (applied here to the fixtures too), and Lit's version
 * registries dropped. buildOptionDrift() notices when that script changes.
 */
const minifyTemplates = {
  name: 'minify-templates',
  setup(b: import('esbuild').PluginBuild) {
    b.onLoad({ filter: /[\\/](bench[\\/]fixtures|widget)[\\/].*\.ts$/ }, (args) => {
      let text = readFileSync(args.path, 'utf8');
      text = text.replace(
        /css`([^`]*)`/g,
        (_: string, body: string) =>
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
      text = text
        .replace(/\n[ \t]+/g, '\n')
        .replace(/>\n</g, '><')
        .replace(/\n(\/?>)/g, '$1');
      return { contents: text, loader: 'ts' as const };
    });
  },
};

const noLitGlobals = {
  name: 'no-lit-globals',
  setup(b: import('esbuild').PluginBuild) {
    b.onLoad({ filter: /[\\/]node_modules[\\/](lit-html|lit-element|@lit[\\/]reactive-element)[\\/][^\\/]+\.js$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replace(
        /\(\w+\.(?:litHtmlVersions|reactiveElementVersions|litElementVersions)\?\?=\[\]\)\.push\("[^"]*"\)/g,
        'void 0',
      ),
      loader: 'js' as const,
    }));
  },
};

/**
 * Bundles bench/fixtures/<fixture>.ts (default: minimal-element) with the options of the widget's
 * script-tag bundle (scripts/build-widget.mjs `buildBundle()`): esbuild,
 * esm, es2022, minify, mangleProps /^_[a-z]/, no legal comments, a one-line
 * licence banner of the same form, the same template and Lit plugins (the
 * widget's translation packing has nothing to pack here). Returns the bundle.
 */
export async function buildMinimalElement(fixture = 'minimal-element'): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'kyc-bench-min-'));
  try {
    const outfile = join(dir, `${fixture}.js`);
    await build({
      entryPoints: [join(ROOT, `bench/fixtures/${fixture}.ts`)],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      tsconfig: join(ROOT, 'widget/tsconfig.json'),
      legalComments: 'none',
      banner: { js: '/*! minimal | Lit (c) Google LLC, BSD-3-Clause */' },
      charset: 'utf8',
      mangleProps: /^_[a-z]/,
      plugins: [minifyTemplates, noLitGlobals],
      logLevel: 'warning',
    });
    return readFileSync(outfile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The fixture must be bundled like the widget. The options above are a copy of
 * scripts/build-widget.mjs's; this says which of them that script no longer
 * shows, so a drift is reported instead of silently skewing the floor.
 */
export function buildOptionDrift(): string[] {
  let text = '';
  try {
    text = readFileSync(join(ROOT, 'scripts/build-widget.mjs'), 'utf8');
  } catch {
    return ['scripts/build-widget.mjs not found'];
  }
  const expected = [
    "format: 'esm'",
    "target: 'es2022'",
    'minify: true',
    "legalComments: 'none'",
    'mangleProps: /^_[a-z]/',
    'bundle: true',
    "platform: 'browser'",
  ];
  const missing = expected.filter((o) => !text.includes(o));
  const plugins =
    text
      .match(/plugins:\s*\[([^\]]*)\]/)?.[1]
      ?.split(',')
      .map((p) => p.trim()) ?? [];
  const known = new Set(['minifyTemplates', 'noLitGlobals', 'packTranslations']);
  for (const p of plugins) if (!known.has(p)) missing.push(`(new plugin ${p})`);
  for (const p of ['minifyTemplates', 'noLitGlobals']) if (!plugins.includes(p)) missing.push(`plugin ${p}`);
  return missing;
}

export interface WidgetSizeResult {
  widget: Sizes;
  minimal: Sizes;
  ratioGzip: number;
  ratioBrotli: number;
  budgetGzipBytes: number;
  withinBudget: boolean;
  /** Options of scripts/build-widget.mjs the fixture's build copies but that script no longer shows (should be empty). */
  buildOptionDrift: string[];
}

export async function widgetSize(): Promise<WidgetSizeResult> {
  const widget = sizesOf(readFileSync(join(ROOT, 'dist/widget/kyc-onboard.js')));
  const minimal = sizesOf(await buildMinimalElement());
  return {
    widget,
    minimal,
    ratioGzip: Math.round((widget.gzipBytes / minimal.gzipBytes) * 100) / 100,
    ratioBrotli: Math.round((widget.brotliBytes / minimal.brotliBytes) * 100) / 100,
    budgetGzipBytes: WIDGET_GZIP_BUDGET,
    withinBudget: widget.gzipBytes <= WIDGET_GZIP_BUDGET,
    buildOptionDrift: buildOptionDrift(),
  };
}

export interface WorkerSizeResult {
  rawBytes: number;
  gzipBytes: number;
  brotliBytes?: number;
  budgetGzipBytes: number;
  aimGzipBytes: number;
  withinBudget: boolean;
  /** Minified bytes per part of the bundle (esbuild metafile), biggest first. */
  split: { part: string; bytes: number; share: number }[];
}

/** The part of the worker bundle an input file belongs to. */
function partOf(path: string): string {
  const nm = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (nm) return nm[1]!;
  if (path.startsWith('sandbox/')) return 'sandbox (the built-in vendor)';
  if (path.startsWith('worker/')) return 'worker (routes, client, schemas)';
  return path;
}

async function workerSplit(): Promise<WorkerSizeResult['split']> {
  const r = await build({
    entryPoints: [join(ROOT, 'worker/entry/local.ts')],
    bundle: true,
    format: 'esm',
    minify: true,
    write: false,
    outdir: join(tmpdir(), 'kyc-bench-split'),
    external: ['cloudflare:workers'],
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: ROOT,
  });
  const out = Object.values(r.metafile.outputs).find((o) => o.entryPoint);
  const parts = new Map<string, number>();
  let total = 0;
  for (const [path, info] of Object.entries(out?.inputs ?? {})) {
    parts.set(partOf(path), (parts.get(partOf(path)) ?? 0) + info.bytesInOutput);
    total += info.bytesInOutput;
  }
  return [...parts]
    .map(([part, bytes]) => ({ part, bytes, share: Math.round((bytes / total) * 1000) / 1000 }))
    .sort((a, b) => b.bytes - a.bytes);
}

export async function workerSize(): Promise<WorkerSizeResult> {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/check-deploy.mjs'), '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const line = r.stdout
    .split('\n')
    .reverse()
    .find((l) => l.trim().startsWith('{'));
  if (!line) throw new Error(`scripts/check-deploy.mjs --json printed no JSON (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  const d = JSON.parse(line) as { rawBytes: number; gzipBytes: number; budgetGzipBytes: number; withinBudget: boolean };
  return {
    rawBytes: d.rawBytes,
    gzipBytes: d.gzipBytes,
    budgetGzipBytes: d.budgetGzipBytes,
    aimGzipBytes: WORKER_GZIP_AIM,
    withinBudget: d.gzipBytes <= d.budgetGzipBytes,
    split: await workerSplit(),
  };
}
