// The widget's entry (built by the test-runner config before the tests) must stay within budget: it is all a
// page loads before the person does anything. Chunks load later, on demand, and are reported.
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { LANGUAGES } from '../../rules/language.js';

interface Sizes {
  raw: number;
  gzip: number;
  brotli: number;
}
interface Size extends Sizes {
  budget: number;
  chunks: (Sizes & { file: string })[];
}

describe('dist/widget/kyc-onboard.js', () => {
  it('the entry is within the 12 KB gzip budget (measured like scripts/widget-size.mjs); chunks reported', async () => {
    const size = await executeServerCommand<Size, undefined>('widget-size');
    console.log(`kyc-onboard.js: gzip ${size.gzip} B, brotli ${size.brotli} B (budget ${size.budget} B gzip)`);
    for (const c of size.chunks) console.log(`  ${c.file}: gzip ${c.gzip} B`);
    expect(size.budget).to.equal(12 * 1024);
    expect(size.gzip).to.be.greaterThan(4000); // it is the real bundle
    expect(size.gzip).to.be.at.most(size.budget);
    // The dictionaries (47: English is built in), the run and the Turnstile glue are files of their own, not in the entry.
    const names = size.chunks.map((c) => c.file.replace(/-[A-Z0-9]+\.js$/, ''));
    expect(names).to.include.members(['kyc-onboard-run', 'kyc-onboard-turnstile']);
    const dictionaries = LANGUAGES.filter((l) => l !== 'en');
    expect(dictionaries).to.have.length(47);
    expect(names).to.include.members(dictionaries.map((l) => `kyc-onboard-${l}`));
    // One hash for the whole set: the entry names them all with one constant, whatever their number.
    const hashes = new Set(
      size.chunks.filter((c) => dictionaries.some((l) => c.file.startsWith(`kyc-onboard-${l}-`))).map((c) => c.file.slice(-11, -3)),
    );
    expect(hashes.size).to.equal(1);
  });

  it('is one self-contained module: no static imports (only on-demand chunks beside it), lit inlined', async () => {
    const res = await fetch('/dist/widget/kyc-onboard.js');
    const code = await res.text();
    expect(code).not.to.match(/\bimport\s*[{*"']|\bfrom\s*["']/);
    const lazy = [...code.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]!);
    expect(lazy.length).to.be.greaterThan(0);
    for (const path of lazy) expect(path).to.match(/^\.\/kyc-onboard-[\w-]+\.js$/);
    expect(code).to.contain('customElements');
    // No table of dictionaries in the entry: one computed name (so its size does not grow with the languages).
    expect(code).not.to.match(/kyc-onboard-(fr|de|ja|zh-Hant)-/);
    expect(code).to.match(/"\.\/kyc-onboard-"\+\w+\+"-[A-Z2-7]{8}\.js"/);
    for (const l of ['fr', 'he', 'zh-Hant']) {
      const file = [...code.matchAll(/"\.\/kyc-onboard-"\+\w+\+"(-[A-Z2-7]{8}\.js)"/g)][0]![1]!;
      const chunk = await (await fetch(new URL(`./kyc-onboard-${l}${file}`, res.url))).text();
      expect(chunk, l).to.match(/^export default \{"givenName":"[^"]+",/);
    }
    // The chunks import nothing either: one request each, and never a second copy of shared code.
    for (const path of lazy) {
      const chunk = await (await fetch(new URL(path, res.url))).text();
      expect(chunk, path).not.to.match(/\bimport\s*[{*"'(]|\bfrom\s*["']/);
    }
    // Also gzip in the browser, as a cross-check of the server-side measurement.
    const gz = await new Response(new Blob([code]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer();
    expect(gz.byteLength).to.be.at.most(12 * 1024 + 256);
  });
});
