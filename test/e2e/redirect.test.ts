/**
 * The redirect path: on the demo, fill the form by its labels,
 * submit, land on the hosted-flow page, "Complete verification", come back,
 * see the widget reach `complete`, and see `kyc-complete` in the event log.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALICE, en, eventLog, fillForm, submit, waitForState, widget, withDemoPage } from './helpers';

describe('the redirect path', () => {
  it('redirect path: form → hosted flow → "Complete verification" → back to complete', { timeout: 90_000 }, async () => {
    await withDemoPage(async ({ worker, browser, page }) => {
      await page.getByRole('heading', { name: 'Open your Everyday account' }).waitFor();

      await fillForm(page, ALICE);
      // "Continue on this device" is the preselected choice.
      assert.equal(await widget(page).getByRole('radio', { name: 'Continue on this device' }).isChecked(), true);
      await submit(page);

      await page.waitForURL(/\/sandbox\/flow\//);
      await page.getByText('Alice Citizen').waitFor();
      await page.getByRole('button', { name: 'Complete verification' }).click();

      await page.waitForURL((u) => u.pathname === '/' && u.origin === worker.url);
      await waitForState(page, 'complete');
      await widget(page).getByText(en.completeSuccess).waitFor();

      // The demo's live log shows the whole story, kyc-complete on top with its detail.
      const newest = eventLog(page).first();
      await newest.getByText('kyc-complete').waitFor();
      assert.match(await newest.innerText(), /CHECKED_SUCCESS_CLEAR/);
      const all = (await eventLog(page).allInnerTexts()).join('\n');
      for (const e of ['kyc-submit', 'kyc-link', 'kyc-redirect']) assert.match(all, new RegExp(e), `${e} is in the log`);

      // The return parameters are gone from the address bar once read.
      assert.equal(new URL(page.url()).search, '');
      assert.deepEqual(browser.problems, [], 'no console errors or CSP violations');
    });
  });
});
