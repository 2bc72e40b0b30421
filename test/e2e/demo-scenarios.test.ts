/**
 * The demo's Scenarios show the states an ordinary mistake leads to, axe-clean: "A typo fails the check" (the
 * sandbox's NO_MATCH for the family name Nomatch → "Check your details and try again" with the form filled in
 * again, a second NO_MATCH → the final state with the bank's `outcome` slot), and "A mistyped number" (a texted
 * link → "Change my number" → the form with every value kept).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertStopped, axeViolations, en, openBrowser, startStack, submit, waitForState, waitForValue, widget } from './helpers';

describe('the demo’s scenarios', () => {
  it(
    'a typo: requires_input with the form filled, then the outcome slot; a mistyped number: Change my number',
    { timeout: 240_000 },
    async () => {
      const worker = await startStack();
      const browser = await openBrowser();
      try {
        const { page } = browser;
        await page.goto(worker.url + '/');
        await waitForState(page, 'idle');

        // A typo fails the check.
        await page.getByRole('button', { name: 'A typo fails the check' }).click();
        await page.getByText(/the family name Nomatch finds no match/).waitFor();
        const family = widget(page).locator('#familyName');
        await waitForValue(family, 'Nomatch');
        await widget(page).locator('#consent').check();
        await submit(page);
        await page.waitForURL(/\/sandbox\/flow\//);
        await page.getByRole('button', { name: 'Complete verification' }).click();
        await page.waitForURL((u) => u.pathname === '/' && u.origin === worker.url);
        await widget(page).getByRole('heading', { name: en.requiresInput }).waitFor({ timeout: 30_000 });
        await waitForState(page, 'idle');
        assert.equal(await family.inputValue(), 'Nomatch', 'the returned page fills the form as it was');
        assert.equal(await widget(page).locator('#phoneNumber').inputValue(), '412 345 678');
        assert.deepEqual(await axeViolations(page), [], 'requires_input in the demo is axe-clean');

        // The same mistake again: no attempt is left, the final state shows the bank's next step.
        await widget(page).locator('#consent').check();
        await submit(page);
        await page.waitForURL(/\/sandbox\/flow\//);
        await page.getByRole('button', { name: 'Complete verification' }).click();
        await page.waitForURL((u) => u.pathname === '/' && u.origin === worker.url);
        await waitForState(page, 'complete', 30_000);
        await page.getByText(/visit any Harbourline branch/).waitFor();
        assert.ok(await page.getByText(/visit any Harbourline branch/).isVisible(), 'the outcome slot shows');
        assert.deepEqual(await axeViolations(page), [], 'the final state with the outcome slot is axe-clean');

        // A mistyped number.
        await page.getByRole('button', { name: 'A mistyped number' }).click();
        await waitForState(page, 'idle');
        await page.getByText(/Press “Change my number”/).waitFor();
        await waitForValue(widget(page).locator('#phoneNumber'), '412 345 679');
        await widget(page).getByRole('radio', { name: en.textMe }).check();
        await widget(page).locator('#consent').check();
        await submit(page);
        await waitForState(page, 'sms-sent', 30_000);
        await widget(page).getByRole('button', { name: en.changeNumber }).click();
        await waitForState(page, 'idle', 30_000);
        assert.equal(await widget(page).locator('#phoneNumber').inputValue(), '412 345 679', 'the values are kept');
        assert.equal(await widget(page).locator('#familyName').inputValue(), 'Rivera');
        assert.deepEqual(await axeViolations(page), [], 'back on the form after Change my number, axe-clean');
        assert.deepEqual(browser.problems, [], 'no console errors or CSP violations');
      } finally {
        await browser.close();
        await worker.stop();
      }
      await assertStopped(worker.url);
    },
  );
});
