/**
 * `/api/ruok` in workerd against a fake vendor that never answers: thirty
 * concurrent checks share one vendor call (and its failure), and the failure
 * is remembered, so the next check right after asks the vendor nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';

let vendor: FakeVendor;
let worker: MiniflareWorker;
const hung: (() => void)[] = [];

before(async () => {
  // Every ruok hangs (the worker's own timeout ends each call).
  vendor = await startFakeVendor((_req, res) => {
    hung.push(() => res.destroy());
  });
  worker = await startMiniflareWorker({
    vars: { KYC_BASE_URL: vendor.url, KYC_API_KEY: 'k', KYC_CUSTOMER_ID: 'c', SESSION_SECRET: 's'.repeat(32), KYC_TIMEOUT_MS: '1500' },
  });
});
after(async () => {
  for (const h of hung) h();
  await worker?.dispose();
  await vendor?.close();
});

const ruokCalls = () => vendor.requests.filter((r) => r.path.startsWith('/v2/kyc/ruok')).length;
const ruok = (i: number) => fetch(`${worker.url}/api/ruok`, { headers: { 'CF-Connecting-IP': `198.51.100.${i}` } });

describe('ruok while the vendor hangs', () => {
  it('thirty concurrent checks make one vendor call and all answer its failure; the failure is remembered', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => ruok(i + 1)));
    for (const res of answers) {
      assert.equal(res.status, 502);
      assert.equal(((await res.json()) as { errorCode: string }).errorCode, 'VENDOR_ERROR');
    }
    assert.equal(ruokCalls(), 1, 'one vendor call for thirty checks');
    const again = await ruok(31);
    assert.equal(again.status, 502);
    assert.equal(ruokCalls(), 1, 'the failure is remembered: no second call right after');
  });
});
