/**
 * A second attempt through the sandbox: the first check finds no match (the
 * sandbox gives NO_MATCH to the family name "Nomatch"), the widget shows what
 * to check above the form as the person left it, the person corrects the
 * family name and sends it again: the same verification gets a new link for
 * the same entity with the corrected details, and ends `final` with the
 * second attempt's status.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALICE, assertStopped, axeViolations, en, fillForm, openBrowser, startStack, submit, waitForState, widget } from './helpers';

describe('a second attempt', () => {
  it(
    'NO_MATCH → "Check your details" with the form as it was → corrected name → final, same verificationId',
    { timeout: 120_000 },
    async () => {
      const worker = await startStack();
      const browser = await openBrowser();
      try {
        const { page } = browser;
        // Every verificationId the widget announces, kept across the trips to the hosted flow.
        await page.addInitScript(() => {
          for (const type of ['kyc-link', 'kyc-complete']) {
            document.addEventListener(type, (e) => {
              const seen = JSON.parse(sessionStorage.getItem('e2e:events') ?? '[]') as unknown[];
              seen.push({ type, detail: (e as CustomEvent).detail });
              sessionStorage.setItem('e2e:events', JSON.stringify(seen));
            });
          }
        });
        const events = async () =>
          page.evaluate(
            () => JSON.parse(sessionStorage.getItem('e2e:events') ?? '[]') as { type: string; detail: Record<string, unknown> }[],
          );
        await page.goto(worker.url + '/');
        await waitForState(page, 'idle');
        await fillForm(page, { ...ALICE, familyName: 'Nomatch' });
        await submit(page);

        await page.waitForURL(/\/sandbox\/flow\//);
        await page.getByRole('button', { name: 'Complete verification' }).click();
        await page.waitForURL((u) => u.pathname === '/' && u.origin === worker.url);

        // The check found no match: what to check, above the form as it was.
        await widget(page).getByRole('heading', { name: en.requiresInput }).waitFor({ timeout: 30_000 });
        await waitForState(page, 'idle');
        assert.equal(await widget(page).getByLabel('Family name').inputValue(), 'Nomatch', 'the form as the person left it');
        assert.equal(await widget(page).getByLabel('Given name', { exact: false }).first().inputValue(), ALICE.givenName);
        assert.deepEqual(await axeViolations(page), [], 'the requires_input state is axe-clean');
        const firstLink = (await events()).find((e) => e.type === 'kyc-link')!;

        // Correct the family name only, and send it again.
        await widget(page).getByLabel('Family name').fill('Citizen');
        await submit(page);
        await page.waitForURL(/\/sandbox\/flow\//);
        await page.getByText('Alice Citizen').waitFor();
        await page.getByRole('button', { name: 'Complete verification' }).click();
        await page.waitForURL((u) => u.pathname === '/' && u.origin === worker.url);

        await waitForState(page, 'complete', 30_000);
        await widget(page).getByText(en.completeSuccess).waitFor();
        const done = (await events()).find((e) => e.type === 'kyc-complete')!;
        assert.equal(done.detail.checkStatus, 'CHECKED_SUCCESS_CLEAR', 'the second attempt’s status');
        assert.equal(done.detail.verificationId, firstLink.detail.verificationId, 'the same verification');
        assert.deepEqual(browser.problems, [], 'no console errors or CSP violations');
      } finally {
        await browser.close();
        await worker.stop();
      }
      await assertStopped(worker.url);
    },
  );
});
