/**
 * The failure path: "Fail verification" on the hosted-flow page
 * returns through the error URL (`kyc_return=error`); the widget still reaches
 * `complete` (a final status is known), with `checkStatus` `CHECKED_FAILED`,
 * and shows its neutral message, never "you failed".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALICE, assertStopped, eventLog, fillForm, openBrowser, startStack, submit, waitForState, widget } from './helpers';

describe('the failure path', () => {
  it('failure path: "Fail verification" → error URL → complete with CHECKED_FAILED, neutral message', { timeout: 90_000 }, async () => {
    const worker = await startStack();
    const browser = await openBrowser();
    try {
      const { page } = browser;
      const documents: string[] = [];
      page.on('request', (r) => {
        if (r.isNavigationRequest() && r.frame() === page.mainFrame()) documents.push(r.url());
      });
      await page.goto(worker.url + '/');
      await fillForm(page, { ...ALICE, givenName: 'Bob', familyName: 'Example' });
      await submit(page);

      await page.waitForURL(/\/sandbox\/flow\//);
      await page.getByRole('button', { name: 'Fail verification' }).click();
      await page.waitForURL((u) => u.pathname === '/' && u.origin === worker.url);
      await waitForState(page, 'complete');

      // It came back through the error URL the worker gave the hosted flow.
      const back = documents
        .map((u) => new URL(u))
        .find((u) => u.origin === worker.url && u.pathname === '/' && u.searchParams.has('kyc_return'));
      assert.ok(back, `a return to the demo was requested (saw ${documents.join(', ')})`);
      assert.equal(back.searchParams.get('kyc_return'), 'error');
      assert.ok(back.searchParams.get('checkId'), 'the hosted flow appended checkId');

      await widget(page).getByText('We could not verify you online').waitFor();
      assert.equal(
        await widget(page)
          .getByText(/you failed/i)
          .count(),
        0,
      );

      const newest = eventLog(page).first();
      await newest.getByText('kyc-complete').waitFor();
      assert.match(await newest.innerText(), /checkStatus: "CHECKED_FAILED"/);
      assert.equal(
        (await eventLog(page).allInnerTexts()).some((t) => /kyc-error/.test(t)),
        false,
        'a failed check is not a kyc-error',
      );
      assert.deepEqual(browser.problems, []);
    } finally {
      await browser.close();
      await worker.stop();
    }
    await assertStopped(worker.url);
  });
});
