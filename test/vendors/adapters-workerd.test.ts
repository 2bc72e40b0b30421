/**
 * The adapter conformance suite (conformance.ts) once in workerd: both
 * adapters against their doubles, bundled as the worker is (esbuild, the
 * worker's conditions) and run by Miniflare, one case per request
 * (workerd-entry.ts); node runs the same cases in adapters.test.ts. A Stripe
 * adapter whose reference keeps the hosted URL fails here too.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { ROOT } from '../support/wrangler';

const dir = mkdtempSync(join(tmpdir(), 'kyc-adapters-workerd-'));
let mf: Miniflare;

before(async () => {
  const outfile = join(dir, 'conformance.mjs');
  await build({
    entryPoints: [join(ROOT, 'test/vendors/workerd-entry.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['cloudflare:*'],
    tsconfig: join(ROOT, 'worker/tsconfig.json'),
    logLevel: 'error',
  });
  const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(readFileSync(join(ROOT, 'wrangler.toml'), 'utf8'))![1]!;
  mf = new Miniflare({ modules: true, script: readFileSync(outfile, 'utf8'), compatibilityDate, compatibilityFlags: ['nodejs_compat'] });
});
after(async () => {
  await mf?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function run(vendor: string, name: string): Promise<{ status: string; reason?: string; error?: string }> {
  const res = await mf.dispatchFetch(`http://conformance.test/run?${new URLSearchParams({ vendor, case: name })}`);
  assert.equal(res.status, 200);
  return (await res.json()) as { status: string; reason?: string; error?: string };
}

describe('adapter conformance in workerd', () => {
  for (const vendor of ['idv', 'stripe']) {
    it(`${vendor}: every case passes (or is skipped for a capability it lacks)`, async () => {
      const names = (await (await mf.dispatchFetch(`http://conformance.test/names?vendor=${vendor}`)).json()) as string[];
      assert.ok(names.length >= 14, `the suite's cases: ${names.length}`);
      const results = [];
      for (const name of names) results.push([name, await run(vendor, name)] as const);
      const failed = results.filter(([, r]) => r.status === 'failed');
      assert.deepEqual(failed, []);
      // Stripe has every optional rule the suite checks: nothing skipped.
      if (vendor === 'stripe')
        assert.deepEqual(
          results.filter(([, r]) => r.status === 'skipped'),
          [],
        );
    });
  }

  it('a Stripe adapter whose reference keeps the hosted URL fails it', async () => {
    const r = await run(
      'stripe-keeps-url',
      'openUrl: each open asks the vendor for the URL, which no reference keeps; none once the attempt ended',
    );
    assert.equal(r.status, 'failed');
    assert.match(r.error ?? '', /Conformance assertion failed: the reference keeps no URL/);
  });
});
