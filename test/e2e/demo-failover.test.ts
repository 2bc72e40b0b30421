/**
 * Failover in two clicks, in Chromium on `npm start`'s stack: the demo
 * console's "Vendors and failover" panel switches the demo partner to idv
 * then Stripe and takes idv down; the next verification's link is made by
 * Stripe (the Stripe double's hosted page), and /ops counts one failover.
 * "As configured" brings every vendor back up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALICE, fillForm, submit, withDemoPage } from './helpers';
import { until } from '../support/wait';

interface Funnel {
  partners: { partnerId: string; failovers: number; byVendor: Record<string, { linkCreated: number }> }[];
}

describe("the demo's failover", () => {
  it('idv, then Stripe; take idv down; the link is made by Stripe and /ops counts one failover', { timeout: 120_000 }, async () => {
    await withDemoPage(async ({ worker, browser, page }) => {
      const panel = page.getByRole('region', { name: 'Vendors and failover' });
      await panel.getByText(/idv, as configured/).waitFor();

      // The two clicks.
      await panel.getByText('idv, then Stripe').click();
      await panel.getByText(/idv, then Stripe \(failover before start\)/).waitFor();
      await panel.getByRole('button', { name: 'Take idv down' }).click();
      await panel.getByRole('button', { name: 'Bring idv back up' }).waitFor();

      await fillForm(page, ALICE);
      await submit(page);
      await page.waitForURL(/\/sandbox\/stripe\/flow\//);

      const funnel = async () => ((await (await fetch(`${worker.url}/ops/api/funnel`)).json()) as Funnel).partners;
      const a = await until(async () => (await funnel()).find((p) => p.partnerId === 'demo-a' && p.failovers >= 1), {
        what: 'the failover counted on /ops',
        detail: () => worker.output(),
      });
      assert.equal(a.failovers, 1);
      assert.equal(a.byVendor.stripe?.linkCreated, 1);

      // Back as configured, every vendor up (the verification under way stays Stripe's: the widget waits for it).
      await page.goto(worker.url + '/');
      await panel.getByRole('button', { name: 'As configured' }).click();
      await panel.getByRole('button', { name: 'Take idv down' }).waitFor();
      await panel.getByText(/idv, as configured/).waitFor();
      assert.deepEqual(
        browser.problems.filter((p) => !/favicon/.test(p)),
        [],
        'no console errors or CSP violations',
      );
    });
  });
});
