/**
 * Continuing on a phone. First at API level: a link asked with `handoff: true`, its QR
 * code decoded, the decoded URL opened in a second, phone-sized browser
 * context: a page naming the partner with "Continue" (opening the link uses
 * nothing up), the sandbox's hosted flow, "Complete verification", the code
 * the first device shows, and the worker's own "All done" page. The first device then has the final outcome
 * and a result token, with nobody touching it. Then through the widget: the
 * QR code it draws, read from a screenshot as a camera would.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adultDateOfBirth } from '../support/dates';
import { decodeQr, decodeScreenshot } from '../support/qr';
import {
  ALICE,
  assertStopped,
  axeViolations,
  en,
  eventLog,
  startOnPhone,
  openBrowser,
  PHONE,
  recordedEvents,
  recordEvents,
  startStack,
  waitForState,
  widget,
  withLaptopAndPhone,
} from './helpers';

describe('continue on my phone', () => {
  it(
    'handoff: the QR URL opened on a phone runs the hosted flow, ends on "All done", and the first device gets the outcome',
    { timeout: 90_000 },
    async () => {
      const worker = await startStack();
      const phone = await openBrowser(PHONE);
      try {
        const headers = { 'Content-Type': 'application/json', Origin: worker.url };
        const res = await fetch(`${worker.url}/api/onboarding-link`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            name: { givenName: 'Pia', familyName: 'Phone' },
            dateOfBirth: adultDateOfBirth(),
            phone: { code: '+61', number: '0412 345 678' },
            consent: true,
            handoff: true,
          }),
        });
        assert.equal(res.status, 200);
        const link = (await res.json()) as { url: string; session: string; qr: { size: number; modules: string }; claimCode: string };
        const scanned = decodeQr(link.qr);
        assert.equal(scanned, link.url);

        const { page } = phone;
        // A link preview's HEAD uses nothing up.
        assert.equal((await fetch(scanned, { method: 'HEAD' })).status, 200);
        await page.goto(scanned);
        await page.getByRole('heading', { name: 'Continue your identity check' }).waitFor();
        assert.deepEqual(await axeViolations(page), [], 'the Continue page is axe-clean');
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.waitForURL(/\/sandbox\/flow\//);
        await page.getByRole('button', { name: 'Complete verification' }).click();
        await page.getByRole('heading', { name: 'One last step' }).waitFor();
        await page.getByLabel('Code').fill(link.claimCode);
        await page.getByRole('button', { name: 'Confirm' }).click();
        await page.getByRole('heading', { name: 'All done' }).waitFor();
        await page.getByText('Go back to your computer').waitFor();
        assert.match(page.url(), new RegExp(`^${worker.url}/handoff/vrf_`));
        assert.deepEqual(phone.problems, [], 'no console errors or CSP violations on the phone');

        const result = (await (
          await fetch(`${worker.url}/api/result`, { method: 'POST', headers, body: JSON.stringify({ session: link.session }) })
        ).json()) as { checkStatus: string; resultToken?: string };
        assert.equal(result.checkStatus, 'CHECKED_SUCCESS_CLEAR');
        assert.ok(result.resultToken);
      } finally {
        await phone.close();
        await worker.stop();
      }
      await assertStopped(worker.url);
    },
  );

  it(
    'widget: "Continue on my phone" shows a QR code a camera can read; the phone finishes; the laptop reaches complete by itself',
    { timeout: 180_000 },
    async () => {
      await withLaptopAndPhone(async ({ worker, laptop, phone }) => {
        const { page } = laptop;
        await page.goto(worker.url + '/');
        await startOnPhone(page, { ...ALICE, givenName: 'Quinn', familyName: 'Scanner' }, 'Continue on my phone');
        await widget(page).getByText(en.handoffScan).waitFor();
        const qr = widget(page).getByRole('img', { name: en.handoffQr });
        // A camera's view: a screenshot of the element, decoded with jsQR.
        const scanned = await decodeScreenshot(phone.page, await qr.screenshot());
        const asText = await widget(page).getByLabel(en.handoffLink).inputValue();
        assert.equal(scanned, asText, 'the QR code and the link as text are the same URL');
        assert.match(scanned, new RegExp(`^${worker.url}/handoff/vrf_`), 'the worker’s single-use link, not the vendor’s');
        assert.deepEqual(await axeViolations(page), [], 'the handoff view is axe-clean');

        const code = (await widget(page).locator('[part~="code"]').innerText()).replace(/\s/g, '');
        assert.match(code, /^\d{6}$/, 'the code beside the QR code');
        await phone.page.goto(scanned);
        await phone.page.getByRole('button', { name: 'Continue' }).click();
        // The laptop notices the phone opened the link (its next poll), and replaces the used code by itself: had the
        // phone's tab closed, a re-scan would work (issue 42's near-trap).
        await widget(page).getByText(en.phoneOpened).waitFor({ timeout: 20_000 });
        await widget(page).getByText(en.handoffUsed).waitFor({ timeout: 20_000 });
        // Read in a blank page of the phone's browser (its first page is on the hosted flow now).
        const second = await phone.context.newPage();
        const rescanned = await decodeScreenshot(second, await qr.screenshot());
        assert.notEqual(rescanned, scanned, 'a new code on the laptop');
        assert.equal(rescanned, await widget(page).getByLabel(en.handoffLink).inputValue());
        await second.goto(scanned);
        await second.getByText('It was already opened on a phone').waitFor();
        await second.close();
        // That page answers 410 on purpose (the browser logs it): not a problem of the phone's pages.
        const expected = (p: string) => p.startsWith(`${scanned}: `) && p.includes('410');
        phone.problems.splice(0, phone.problems.length, ...phone.problems.filter((p) => !expected(p)));
        await phone.page.getByRole('button', { name: 'Complete verification' }).click();
        await phone.page.getByLabel('Code').fill(code);
        await phone.page.getByRole('button', { name: 'Confirm' }).click();
        await phone.page.getByRole('heading', { name: 'All done' }).waitFor();

        await waitForState(page, 'complete', 30_000);
        await widget(page).getByText(en.completeSuccess).waitFor();
        const newest = eventLog(page).first();
        await newest.getByText('kyc-complete').waitFor();
        assert.match(await newest.innerText(), /resultToken/);
        assert.deepEqual(laptop.problems, []);
        // The demo's phone pane opens the link of the QR code shown beside the page (for presenting on one
        // screen): since the phone opened the first, that is the new one; the check is over, so the pane shows
        // the calm single-use page.
        const popup = page.waitForEvent('popup');
        await page.getByRole('button', { name: 'Open the QR link (as the phone)' }).click();
        const pane = await popup;
        await pane.getByRole('heading', { name: 'This link no longer works' }).waitFor();
        assert.equal(pane.url(), rescanned);
        await pane.close();
        assert.deepEqual(phone.problems, []);
      });
    },
  );

  it(
    'widget: a QR link the laptop’s clock thinks expired is renewed without asking; the worker, whose clock says it is still good, answers the same link, which finishes',
    { timeout: 120_000 },
    async () => {
      await withLaptopAndPhone(async ({ worker, laptop, phone }) => {
        const { page } = laptop;
        // The laptop's clock is the test's: it jumps past the link's expiry instead of waiting 30 minutes.
        await page.clock.install();
        await recordEvents(page);
        await page.goto(worker.url + '/');
        await startOnPhone(page, { ...ALICE, givenName: 'Rene', familyName: 'Renewal' }, 'Continue on my phone');
        const linkBox = widget(page).getByLabel(en.handoffLink);
        const first = await linkBox.inputValue();

        await page.clock.fastForward('31:00');
        await widget(page).getByText(en.handoffRenewed).waitFor({ timeout: 20_000 });
        const second = await linkBox.inputValue();
        // Renewal only when needed: by the worker's clock the unopened link has most of its time left, so the
        // renewal answers it again (no vendor call, no renewal counted) instead of a link nobody needed.
        assert.equal(second, first, 'the same link: the worker’s clock decides');
        const scanned = await decodeScreenshot(phone.page, await widget(page).getByRole('img', { name: en.handoffQr }).screenshot());
        assert.equal(scanned, second, 'the QR code drawn is the link');
        assert.equal(await widget(page).getAttribute('state'), 'handoff');
        assert.deepEqual(await axeViolations(page), [], 'the renewed handoff view is axe-clean');

        await phone.page.goto(second);
        await phone.page.getByRole('button', { name: 'Continue' }).click();
        await phone.page.getByRole('button', { name: 'Complete verification' }).click();
        await phone.page.getByLabel('Code').fill((await widget(page).locator('[part~="code"]').innerText()).replace(/\s/g, ''));
        await phone.page.getByRole('button', { name: 'Confirm' }).click();
        await phone.page.getByRole('heading', { name: 'All done' }).waitFor();
        await waitForState(page, 'complete', 30_000);
        const events = await recordedEvents(page);
        // The one link until the phone opened it; then the laptop replaces the opened code by itself (at most once here).
        const links = events.filter((e) => e.type === 'kyc-link').map((e) => e.detail.url);
        assert.equal(links[0], first);
        assert.ok(links.filter((u) => u !== first).length <= 1, `one link, then at most its replacement: ${links.join(', ')}`);
        assert.ok(events.some((e) => e.type === 'kyc-complete' && typeof e.detail.resultToken === 'string'));
        assert.deepEqual(laptop.problems, []);
      });
    },
  );
});
