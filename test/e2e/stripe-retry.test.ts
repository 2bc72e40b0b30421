/**
 * A second attempt on Stripe, end to end on `npm start`'s stack in Chromium:
 * the demo partner on Stripe (`KYC_VENDOR=stripe`, the Stripe double), the
 * person fails the first attempt on the double's hosted page with a code a
 * person may fix by trying again (`document_expired`: Stripe leaves the
 * session `requires_input`), the widget says what to check above the form,
 * the person sends it again, "Verify" this time: `complete`, verified at
 * Stripe in the browser's event, and in `/v1`, whose `attempts` keep both.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALICE, en, fillForm, recordedEvents, submit, waitForState, widget, withDemoPage } from './helpers';

type Json = Record<string, any>;

/** A `last_error.code` the Stripe adapter maps to a retryable attempt (worker/vendors/stripe/mapping.ts). */
const RETRYABLE = 'document_expired';

describe('a second attempt on Stripe', () => {
  it(
    `stripe: Fail with ${RETRYABLE} → what to check → second attempt → Verify → complete; /v1 keeps the first attempt`,
    { timeout: 150_000 },
    async () => {
      await withDemoPage(
        async ({ worker, browser, page }) => {
          await fillForm(page, ALICE);
          await submit(page);

          // The first attempt: the double's hosted page, "Fail" with the chosen code.
          await page.waitForURL(/\/sandbox\/stripe\/flow\//);
          await page.getByLabel('Error code').selectOption(RETRYABLE);
          await page.getByRole('button', { name: 'Fail' }).click();
          await page.waitForURL((u) => u.origin === worker.url && u.pathname === '/');

          // The next-attempt state: what to check, above the form, which is there to send again.
          await widget(page).getByRole('heading', { name: en.requiresInput }).waitFor({ timeout: 30_000 });
          await waitForState(page, 'idle');
          assert.equal(
            (await recordedEvents(page)).find((e) => e.type === 'kyc-complete'),
            undefined,
            'a retryable attempt does not end the verification',
          );

          // The second attempt: the person sends the form again (consent again), "Verify" this time.
          const w = widget(page);
          await w.getByLabel('Given name').waitFor();
          await fillForm(page, ALICE);
          await submit(page);
          await page.waitForURL(/\/sandbox\/stripe\/flow\//);
          await page.getByRole('button', { name: 'Verify' }).click();
          await page.waitForURL((u) => u.origin === worker.url && u.pathname === '/');
          await waitForState(page, 'complete', 30_000);

          const complete = (await recordedEvents(page)).find((e) => e.type === 'kyc-complete')!.detail;
          assert.deepEqual(complete.result, { outcome: 'verified', vendor: 'stripe', vendorStatus: 'verified' });
          const id = String(complete.verificationId);

          // The partner's server: verified at Stripe, the first attempt kept with Stripe's word for it.
          const keys = (await (await fetch(`${worker.url}/sandbox/demo/server-keys`)).json()) as { partners: { serverKey: string }[] };
          let found: Json | undefined;
          for (const p of keys.partners) {
            const res = await fetch(`${worker.url}/v1/verifications/${id}`, { headers: { Authorization: `Bearer ${p.serverKey}` } });
            if (res.status === 200) found = (await res.json()) as Json;
            else await res.body?.cancel();
          }
          assert.ok(found, 'a demo partner has the verification');
          assert.equal(found.status, 'final');
          assert.deepEqual(found.result, { outcome: 'verified', vendor: 'stripe', vendorStatus: 'verified' });
          // Both attempts, in Stripe's words: the retryable one, then the verified one.
          assert.deepEqual(
            (found.attempts as Json[] | undefined)?.map((a) => a.checkStatus),
            [RETRYABLE, 'verified'],
          );
          assert.deepEqual(browser.problems, [], 'no console errors or CSP violations');
        },
        { KYC_VENDOR: 'stripe' },
        { recordEvents: true },
      );
    },
  );
});
