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
import { scriptTagOptions } from '../scripts/lib/widget-esbuild.mjs';

/** The entry (`dist/widget/kyc-onboard.js`); its chunks load on demand and are not counted. */
export const WIDGET_GZIP_BUDGET = 12 * 1024;

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
 * Bundles bench/fixtures/<fixture>.ts (default: minimal-element) with the widget's own
 * script-tag options and plugins (scripts/lib/widget-esbuild.mjs, which
 * scripts/build-widget.mjs builds the widget with; the widget's translation
 * packing has nothing to pack here). Returns the bundle.
 */
export async function buildMinimalElement(fixture = 'minimal-element'): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'kyc-bench-min-'));
  try {
    const outfile = join(dir, `${fixture}.js`);
    await build({
      ...scriptTagOptions({ name: 'minimal', tsconfig: join(ROOT, 'widget/tsconfig.json') }),
      entryPoints: [join(ROOT, `bench/fixtures/${fixture}.ts`)],
      outfile,
    });
    return readFileSync(outfile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface WidgetSizeResult {
  widget: Sizes;
  minimal: Sizes;
  ratioGzip: number;
  ratioBrotli: number;
  budgetGzipBytes: number;
  withinBudget: boolean;
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
  };
}

/** The production worker's figures (`wrangler deploy --dry-run --env production`), the local stack's under `local`. */
export interface WorkerSizeResult {
  rawBytes: number;
  gzipBytes: number;
  budgetGzipBytes: number;
  withinBudget: boolean;
  /** The local stack (sandbox + demo inside: npm start, the tests), with its own budget. */
  local: { rawBytes: number; gzipBytes: number; budgetGzipBytes: number; withinBudget: boolean };
  /** `npm run check:deploy` passed: the one place whose verdict on the bundles the bench follows (exit 1 when it fails). */
  checkDeployPassed: boolean;
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
  type Sized = { rawBytes: number; gzipBytes: number; budgetGzipBytes: number; withinBudget: boolean };
  const d = JSON.parse(line) as Sized & { local: Sized };
  return {
    rawBytes: d.rawBytes,
    gzipBytes: d.gzipBytes,
    budgetGzipBytes: d.budgetGzipBytes,
    withinBudget: d.withinBudget,
    local: {
      rawBytes: d.local.rawBytes,
      gzipBytes: d.local.gzipBytes,
      budgetGzipBytes: d.local.budgetGzipBytes,
      withinBudget: d.local.withinBudget,
    },
    checkDeployPassed: r.status === 0,
    split: await workerSplit(),
  };
}
