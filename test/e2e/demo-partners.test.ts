/**
 * The demo's two partners in a real browser: the same `npm start` opened as
 * 127.0.0.1 is Harbourline Bank (child demo-child-a) and as localhost is
 * Kestrel Credit Union (child demo-child-b). A verification started as
 * Kestrel goes all the way through, and its person lives at the sandbox under
 * demo-child-b: invisible to demo-child-a, visible to the parent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALICE, assertStopped, fillForm, openBrowser, startStack, submit, waitForState, widget } from './helpers';

async function checksAs(base: string, entityId: string, apiKey: string, childId?: string): Promise<number> {
  const res = await fetch(`${base}/sandbox/v2/kyc/entity/${entityId}/checks`, {
    headers: { api_key: apiKey, 'X-Service-CustomerID': 'demo-customer', ...(childId ? { 'X-Service-CustomerChildID': childId } : {}) },
  });
  await res.body?.cancel();
  return res.status;
}

describe("the demo's two partners", () => {
  it('demo partners: 127.0.0.1 and localhost are two partners, each under its own child account', { timeout: 90_000 }, async () => {
    const worker = await startStack();
    const kestrel = worker.url.replace('127.0.0.1', 'localhost');
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await page.goto(worker.url + '/');
      await waitForState(page, 'idle');
      assert.match(await page.title(), /Harbourline Bank/);
      assert.equal(await page.locator('#partner-child').innerText(), 'demo-child-a');
      await page.getByRole('link', { name: 'Kestrel Credit Union' }).click();

      await page.waitForURL((u) => u.origin === kestrel);
      await waitForState(page, 'idle');
      assert.match(await page.title(), /Kestrel Credit Union/);
      assert.equal(await page.locator('#partner-child').innerText(), 'demo-child-b');
      await page.getByRole('link', { name: 'Harbourline Bank' }).waitFor();

      // Read the link answer on its way to the widget (the page navigates away right after).
      let session = '';
      await page.route('**/api/onboarding-link', async (route) => {
        const response = await route.fetch();
        session = ((await response.json()) as { session: string }).session;
        await route.fulfill({ response });
      });
      await fillForm(page, ALICE);
      await submit(page);
      await page.waitForURL(/\/sandbox\/flow\//);
      const entityId = JSON.parse(Buffer.from(session.split('.')[1]!, 'base64url').toString()).sub as string;
      await page.getByRole('button', { name: 'Complete verification' }).click();
      await page.waitForURL((u) => u.pathname === '/' && u.origin === kestrel);
      await waitForState(page, 'complete');
      assert.equal(await widget(page).getAttribute('state'), 'complete');

      assert.deepEqual(
        [
          await checksAs(worker.url, entityId, 'sandbox-key-b', 'demo-child-b'),
          await checksAs(worker.url, entityId, 'sandbox-key-a', 'demo-child-a'),
          await checksAs(worker.url, entityId, 'sandbox-key'),
        ],
        [200, 404, 200],
        'Kestrel’s person: its child sees it, the other child does not, the parent does',
      );
      assert.deepEqual(browser.problems, [], 'no console errors or CSP violations');
    } finally {
      await browser.close();
      await worker.stop();
    }
    await assertStopped(worker.url);
  });
});
