/**
 * The sales demo shows the partner's side: after a verification
 * completes, the demo partner's webhook, received and checked inside the
 * worker, appears as "signature verified"; "Send a forged event" is refused.
 * The demo stays axe-clean with the panel filled.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALICE, axeViolations, fillForm, submit, waitForState, withDemoPage } from './helpers';

describe("the demo's webhooks", () => {
  it('demo: the partner server panel shows the signed webhook verified, and refuses a forged one', { timeout: 90_000 }, async () => {
    await withDemoPage(async ({ worker, browser, page }) => {
      await fillForm(page, ALICE);
      await submit(page);
      await page.waitForURL(/\/sandbox\/flow\//);
      await page.getByRole('button', { name: 'Complete verification' }).click();
      await page.waitForURL((u) => u.origin === worker.url && u.pathname === '/');
      await waitForState(page, 'complete');

      const panel = page.getByRole('region', { name: 'Partner server: webhooks' });
      // The sandbox made this outcome: the delivery says livemode false.
      await panel.getByText(/verification\.completed · verified · signature verified · livemode: false/).waitFor({ timeout: 20_000 });

      await panel.getByRole('button', { name: 'Send a forged event' }).click();
      await panel.getByText(/Forged verification\.completed · refused \(401/).waitFor();
      // The forgery was not recorded: still exactly one verified delivery.
      assert.equal(await panel.getByText(/signature verified/).count(), 1);
      assert.deepEqual(await axeViolations(page), [], 'axe with the webhook panel filled');
      assert.deepEqual(
        browser.problems.filter((p) => !/401/.test(p)),
        [],
        'no console errors or CSP violations but the refused forgery',
      );
    });
  });
});
