/**
 * The widget package as a partner gets it: `npm pack ./packages/kyc-onboard`
 * holds only the built widget (one ES module per source, lit external), its
 * types (no zod), custom-elements.json, a README and a licence; every `exports`
 * target is in it; lit is its only dependency. (The fresh Vite apps that
 * install this tarball are in apps.test.ts.)
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../support/wrangler';
import { packWidget, type Packed } from './support';

let packed: Packed;
before(() => {
  packed = packWidget();
});
after(() => packed?.cleanup());

describe('npm pack of the widget package', () => {
  it('contains only the built widget, its types, the manifest, README, LICENSE and package.json', () => {
    const files = packed.files;
    const allowed = [
      /^package\.json$/,
      /^README\.md$/,
      /^LICENSE$/,
      /^custom-elements\.json$/,
      /^dist\/widget\/[\w/-]+\.js$/,
      /^dist\/widget\/[\w/-]+\.d\.ts$/,
      /^dist\/rules\/[\w-]+\.(js|d\.ts)$/,
      /^dist\/worker\/contract\.d\.ts$/,
      /^frameworks\/[\w-]+\.d\.ts$/,
    ];
    const stray = files.filter((f) => !allowed.some((re) => re.test(f)));
    assert.deepEqual(stray, [], 'nothing but the built widget and its documents');
    for (const f of files) {
      assert.doesNotMatch(f, /(^|\/)(worker\/(?!contract\.d\.ts)|test\/|bench\/|\.ci\/|demo\/|scripts\/|node_modules\/)/, f);
      assert.doesNotMatch(f, /\.map$|\.ts$(?<!\.d\.ts)/, `no source maps or TypeScript sources: ${f}`);
    }
    for (const must of [
      'dist/widget/index.js',
      'dist/widget/index.d.ts',
      'dist/widget/kyc-onboard.js',
      'dist/widget/react.js',
      'dist/widget/react.d.ts',
      'dist/widget/i18n/fr.js',
      'frameworks/vue.d.ts',
      'custom-elements.json',
      'README.md',
      'LICENSE',
    ]) {
      assert.ok(files.includes(must), `${must} is in the tarball`);
    }
    // One module per source file: every widget source has its module.
    const sources = execFileSync('git', ['ls-files', 'widget/*.ts', 'widget/**/*.ts'], { cwd: ROOT, encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((f) => !f.endsWith('.d.ts'));
    for (const s of sources)
      assert.ok(files.includes(s.replace(/^widget\//, 'dist/widget/').replace(/\.ts$/, '.js')), `${s} has its module`);
    assert.ok(packed.sizeBytes < 200_000, `the tarball is small (${packed.sizeBytes} bytes)`);
  });

  it('keeps lit external, imports nothing of the worker, and its types need no zod', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-unpacked-'));
    try {
      execFileSync('tar', ['-xzf', packed.tarball, '-C', dir]);
      const text = (f: string) => readFileSync(join(dir, 'package', f), 'utf8');
      assert.match(text('dist/widget/kyc-onboard.js'), /from ["']lit["']/, 'lit is imported, not inlined');
      for (const f of packed.files.filter((f) => f.endsWith('.js'))) {
        assert.doesNotMatch(
          text(f),
          /(?:from|import)\s*\(?\s*["'](?:zod|hono|libphonenumber-js|jose|ulid|[^"']*worker\/)[^"']*["']/,
          `${f} imports no worker code`,
        );
      }
      for (const f of packed.files.filter((f) => f.endsWith('.d.ts'))) assert.doesNotMatch(text(f), /from ["']zod/, `${f} needs no zod`);
      assert.doesNotMatch(text('dist/worker/contract.d.ts'), /\bz\./);
      assert.match(text('dist/worker/contract.d.ts'), /export type OnboardingLinkRequest = \{/);
      const manifest = JSON.parse(text('custom-elements.json')) as { modules: { path: string }[] };
      for (const m of manifest.modules) assert.ok(packed.files.includes(m.path), `the manifest's ${m.path} is in the package`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('declares exports with types conditions, sideEffects, and lit as its only dependency', () => {
    const pkg = packed.manifest;
    assert.deepEqual(Object.keys(pkg.dependencies ?? {}), ['lit']);
    assert.deepEqual(Object.keys(pkg.peerDependencies ?? {}).sort(), ['@lit/react', 'react']);
    assert.equal(pkg.peerDependenciesMeta?.react?.optional, true);
    assert.equal(pkg.peerDependenciesMeta?.['@lit/react']?.optional, true);
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    assert.equal(pkg.dependencies!.lit, `^${root.dependencies.lit}`, 'the package accepts the lit the repository builds and tests with');
    for (const key of ['.', './react', './vue', './preact', './solid', './element', './define']) {
      const entry = pkg.exports[key] as { types: string; default: string };
      assert.ok(entry, `exports["${key}"]`);
      assert.deepEqual(Object.keys(entry), ['types', 'default'], `${key}: types first`);
      for (const target of [entry.types, entry.default])
        assert.ok(packed.files.includes(target.replace(/^\.\//, '')), `${key} → ${target} is in the tarball`);
    }
    assert.ok(Array.isArray(pkg.sideEffects) && pkg.sideEffects.includes('./dist/widget/index.js'));
  });
});
