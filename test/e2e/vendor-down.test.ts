/**
 * Vendor down: the worker is configured for a real vendor at an
 * unreachable KYC_BASE_URL (a closed port on 127.0.0.1), with a SESSION_SECRET
 * and credentials, and the demo turned on (DEMO=on) to host the widget. The widget shows a retryable error, offers "Try again", and
 * keeps everything that was typed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ALICE,
  en,
  assertStopped,
  dateOfBirthValue,
  fillForm,
  freePort,
  openBrowser,
  recordEvents,
  recordedEvents,
  startStack,
  submit,
  waitForState,
  widget,
} from './helpers';

describe('vendor down', () => {
  it('vendor down: retryable error, "Try again", and the form keeps what was typed', { timeout: 60_000 }, async () => {
    const closed = await freePort(); // nothing listens there
    const worker = await startStack({
      KYC_BASE_URL: `http://127.0.0.1:${closed}`,
      KYC_API_KEY: 'e2e-key',
      KYC_CUSTOMER_ID: 'e2e-customer',
      SESSION_SECRET: 'e2e-session-secret-0123456789abcdef',
      KYC_TIMEOUT_MS: '2000',
      DEMO: 'on', // off by default with a real vendor; on, the demo's banner says so
    });
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await recordEvents(page);
      await page.goto(worker.url + '/');
      // With a real vendor configured, the sandbox (and its outbox) is not there.
      await page.getByText(/The sandbox is off on this server/).waitFor();
      await page
        .getByRole('complementary', { name: 'About this demo' })
        .getByText(/text messages go to real phones/)
        .waitFor();

      await fillForm(page, ALICE);
      await submit(page);
      await waitForState(page, 'error', 20_000);

      const w = widget(page);
      const alert = w.getByRole('alert');
      await alert.getByText(en.errUnavailable).waitFor();
      await alert.getByRole('button', { name: en.retry }).waitFor();

      const errors = (await recordedEvents(page)).filter((e) => e.type === 'kyc-error');
      assert.equal(errors.length, 1, 'one kyc-error (after the one automatic retry)');
      assert.equal(errors[0]!.detail.retryable, true);
      assert.equal(errors[0]!.detail.status, 502);
      assert.ok(errors[0]!.detail.requestId, 'the error names a request id for support');

      // Nothing typed is lost.
      assert.equal(await w.getByLabel('Given name').inputValue(), ALICE.givenName);
      assert.equal(await w.getByLabel('Family name').inputValue(), ALICE.familyName);
      assert.equal(await dateOfBirthValue(page), ALICE.dateOfBirth);
      assert.equal(await w.getByLabel('Country code').inputValue(), ALICE.countryCode);
      assert.equal(await w.getByLabel('Mobile number').inputValue(), ALICE.mobileNumber);
      assert.equal(await w.getByRole('checkbox').isChecked(), true);

      // "Try again" tries again (and, the vendor still being down, fails the same way).
      await alert.getByRole('button', { name: en.retry }).click();
      await page.waitForFunction(
        () => (window as unknown as { __kycEvents: { type: string }[] }).__kycEvents.filter((e) => e.type === 'kyc-error').length === 2,
        undefined,
        { timeout: 20_000 },
      );
      await waitForState(page, 'error');
      assert.equal(await w.getByLabel('Family name').inputValue(), ALICE.familyName);
    } finally {
      await browser.close();
      await worker.stop();
    }
    await assertStopped(worker.url);
  });
});
