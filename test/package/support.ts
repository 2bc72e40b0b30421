/** Packing the widget package once per test file, into a temporary directory. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/wrangler';

export interface PackageJson {
  name: string;
  version: string;
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  sideEffects?: string[] | boolean;
}

export interface Packed {
  tarball: string;
  files: string[];
  sizeBytes: number;
  manifest: PackageJson;
  cleanup: () => void;
}

export const PACKAGE_DIR = join(ROOT, 'packages/kyc-onboard');

/** `npm pack` of the built package (`npm run build` first). */
export function packWidget(): Packed {
  if (!existsSync(join(PACKAGE_DIR, 'dist/widget/index.js')))
    throw new Error('packages/kyc-onboard is not built: run `npm run build` first.');
  const dir = mkdtempSync(join(tmpdir(), 'kyc-pack-'));
  const out = execFileSync('npm', ['pack', PACKAGE_DIR, '--pack-destination', dir, '--json', '--silent'], { cwd: ROOT, encoding: 'utf8' });
  const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  const tarball = join(dir, info!.filename);
  return {
    tarball,
    files: info!.files.map((f) => f.path).sort(),
    sizeBytes: statSync(tarball).size,
    manifest: JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })) as PackageJson,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
