/**
 * Scenario 10, continuing on a phone (API level; the widget's "Continue on my
 * phone" view is not built yet): a link asked with `handoff: true`, its QR
 * code decoded, the decoded URL opened in a second, phone-sized browser
 * context: the sandbox's hosted flow, "Complete verification", and the
 * worker's own "All done" page. The first device then has the final outcome
 * and a result token, with nobody touching it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adultDateOfBirth } from '../support/dates';
import { decodeQr } from '../support/qr';
import { assertStopped, openBrowser, startStack } from './helpers';

test('handoff: the QR URL opened on a phone runs the hosted flow, ends on "All done", and the first device gets the outcome', { timeout: 90_000 }, async () => {
  const worker = await startStack();
  const phone = await openBrowser({ width: 390, height: 800 });
  try {
    const headers = { 'Content-Type': 'application/json', Origin: worker.url };
    const res = await fetch(`${worker.url}/api/onboarding-link`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: { givenName: 'Pia', familyName: 'Phone' }, dateOfBirth: adultDateOfBirth(), phone: { code: '+61', number: '0412 345 678' }, consent: true, handoff: true }),
    });
    assert.equal(res.status, 200);
    const link = (await res.json()) as { url: string; session: string; qr: { size: number; modules: string } };
    const scanned = decodeQr(link.qr);
    assert.equal(scanned, link.url);

    const { page } = phone;
    await page.goto(scanned!);
    await page.waitForURL(/\/sandbox\/flow\//);
    await page.getByRole('button', { name: 'Complete verification' }).click();
    await page.getByRole('heading', { name: 'All done' }).waitFor();
    await page.getByText('Go back to your computer').waitFor();
    assert.match(page.url(), new RegExp(`^${worker.url}/handoff/vrf_`));
    assert.deepEqual(phone.problems, [], 'no console errors or CSP violations on the phone');

    const result = (await (await fetch(`${worker.url}/api/result`, { method: 'POST', headers, body: JSON.stringify({ session: link.session }) })).json()) as { checkStatus: string; resultToken?: string };
    assert.equal(result.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.ok(result.resultToken);
  } finally {
    await phone.close();
    await worker.stop();
  }
  await assertStopped(worker.url);
});
