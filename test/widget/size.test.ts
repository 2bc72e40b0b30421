// The self-contained bundle (built by the test-runner config before the tests) must stay within budget.
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';

interface Size {
  raw: number;
  gzip: number;
  brotli: number;
  budget: number;
}

describe('dist/widget/kyc-onboard.js', () => {
  it('is within the gzip budget (measured like scripts/widget-size.mjs)', async () => {
    const size = (await executeServerCommand<Size, undefined>('widget-size'))!;
    console.log(`kyc-onboard.js: gzip ${size.gzip} B, brotli ${size.brotli} B (budget ${size.budget} B gzip)`);
    expect(size.budget).to.equal(16 * 1024);
    expect(size.gzip).to.be.greaterThan(4000); // it is the real bundle
    expect(size.gzip).to.be.at.most(size.budget);
  });

  it('is one self-contained module: no imports, lit inlined, served as JavaScript', async () => {
    const res = await fetch('/dist/widget/kyc-onboard.js');
    const code = await res.text();
    expect(code).not.to.match(/\bimport\s*[{*"'(]|\bfrom\s*["']/);
    expect(code).to.contain('customElements');
    // Also gzip in the browser, as a cross-check of the server-side measurement.
    const gz = await new Response(new Blob([code]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer();
    expect(gz.byteLength).to.be.at.most(16 * 1024 + 256);
  });
});
