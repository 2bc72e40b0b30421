/**
 * The sales demo's "Start from the server": the demo partner's
 * server (inside the worker, with its development server key) starts the
 * verification; the page gets a client secret and a prefill, the person
 * finishes the hosted flow, and the console shows what the server reads back
 * (`GET /v1/verifications/{id}?include=person`). A local worker shows the
 * development key in the console.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { submit, waitForState, widget, withDemoPage } from './helpers';

describe('the demo started from the server', () => {
  it('demo: start from the server, with a prefill, and the verified person read back', { timeout: 120_000 }, async () => {
    await withDemoPage(async ({ worker, browser, page }) => {
      await page.getByLabel('Start from the server (client secret and prefill)').check();
      await page.getByText(/Your server started vrf_/).waitFor();
      await page.waitForFunction(
        () =>
          document.querySelector('kyc-onboard')?.shadowRoot?.querySelector<HTMLInputElement>('input[name="familyName"]')?.value ===
          'Rivera',
      );
      assert.equal(await page.locator('kyc-onboard').getAttribute('customer-ref'), null, 'the page sets no reference');
      const w = widget(page);
      // The country code follows the browser's region (en-US here) unless the page says otherwise: an Australian number.
      await w.getByLabel('Country code').fill('+61');
      await w.getByLabel('Mobile number').fill('412 345 678');
      await w.getByRole('checkbox').check();
      await submit(page);
      await page.waitForURL(/\/sandbox\/flow\//);
      await page.getByRole('button', { name: 'Complete verification' }).click();
      await page.waitForURL((u) => u.origin === worker.url);
      await waitForState(page, 'complete');
      await page.getByText('Your server read GET /v1/verifications/{id}?include=person').waitFor();
      await page.getByText('verifiedName: "Alex Rivera"').waitFor();
      assert.match((await page.locator('#server-key').textContent()) ?? '', /Bearer kyc_sk_test_[A-Za-z0-9_-]{43}/);
      assert.deepEqual(browser.problems, []);
    });
  });
});
