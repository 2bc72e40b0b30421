// Importing the widget where there is no DOM (server-side rendering, node) throws nothing and defines nothing.
//   node --import tsx --test test/widget/ssr-import.test.mjs
// The source entry always; the built npm entry too when dist/npm exists (npm run build:widget).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('../../dist/npm/widget/index.js', import.meta.url));

describe('the npm entry imports in node (SSR)', () => {
  it('node has no DOM here', () => {
    assert.equal(typeof window, 'undefined');
    assert.equal(typeof document, 'undefined');
  });

  it('importing the npm entry (source) throws nothing and defines nothing', async () => {
    const mod = await import('../../widget/index.ts');
    assert.equal(typeof mod.KycOnboard, 'function');
    assert.equal(typeof mod.defineKycOnboard, 'function');
    assert.equal(mod.TAG, 'kyc-onboard');
    // Lit's node shim provides a registry; the entry must not have used it.
    assert.equal(globalThis.customElements?.get('kyc-onboard'), undefined);
    assert.equal(typeof window, 'undefined');
  });

  it('the class module and the define module import cleanly too', async () => {
    await import('../../widget/kyc-onboard.ts');
    await import('../../widget/define.ts');
    assert.equal(globalThis.customElements?.get('kyc-onboard'), undefined);
  });

  it('importing the built npm entry throws nothing and defines nothing', { skip: !existsSync(built) && 'dist/npm not built' }, async () => {
    const mod = await import(built);
    assert.equal(typeof mod.KycOnboard, 'function');
    assert.equal(globalThis.customElements?.get('kyc-onboard'), undefined);
  });
});
