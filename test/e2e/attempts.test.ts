/**
 * A second attempt through the sandbox: the first check finds no match (the
 * sandbox gives NO_MATCH to the family name "Nomatch"), the widget shows what
 * to check above the form, the person sends it again with the family name
 * corrected: the same verification gets a new link for
 * the same entity with the corrected details, and ends `final` with the
 * second attempt's status.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ALICE,
  assertStopped,
  axeViolations,
  dateOfBirthValue,
  en,
  fillForm,
  openBrowser,
  startStack,
  submit,
  waitForState,
  widget,
} from './helpers';

describe('a second attempt', () => {
  it('NO_MATCH → "Check your details and try again" → corrected name → final, same verificationId', { timeout: 120_000 }, async () => {
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

      // The check found no match: what to check, above the form.
      await widget(page).getByRole('heading', { name: en.requiresInput }).waitFor({ timeout: 30_000 });
      await waitForState(page, 'idle');
      assert.deepEqual(await axeViolations(page), [], 'the requires_input state is axe-clean');
      const firstLink = (await events()).find((e) => e.type === 'kyc-link')!;

      // Back from the hosted flow in this tab the page was loaded afresh: the form comes back as it was
      // (kept encrypted in this tab, opened with the worker's key). Nothing readable is in storage.
      const w = widget(page);
      await page.waitForFunction(
        () => document.querySelector('kyc-onboard')?.shadowRoot?.querySelector<HTMLInputElement>('#familyName')?.value === 'Nomatch',
      );
      const storage = await page.evaluate(() =>
        Object.keys(sessionStorage)
          .filter((k) => k.startsWith('kyc-onboard'))
          .map((k) => sessionStorage.getItem(k))
          .join('\n'),
      );
      for (const clear of ['Nomatch', ALICE.givenName, ALICE.dateOfBirth, ALICE.mobileNumber, ALICE.mobileNumber.replace(/ /g, '')])
        assert.ok(!storage.includes(clear), `sessionStorage holds ${clear} in clear`);
      assert.equal(await w.getByLabel('Given name').inputValue(), ALICE.givenName);
      assert.equal(await dateOfBirthValue(page), ALICE.dateOfBirth);
      assert.equal(await w.getByLabel('Mobile number').inputValue(), ALICE.mobileNumber);
      // The person corrects only the family name (and gives consent again), then sends it.
      await w.getByLabel('Family name').fill(ALICE.familyName);
      await w.getByRole('checkbox').check();
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
  });
});
