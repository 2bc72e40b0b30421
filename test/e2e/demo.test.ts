/**
 * The demo itself: served with the headers the issue asks for, accessible
 * (axe, at laptop and phone sizes, light and dark, with field errors showing),
 * no CSP violation under its strict policy, and its console really drives the
 * widget (theme, language, SMS option) the way a partner would.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertStopped, axeViolations, openBrowser, startStack, submit, waitForState, widget } from './helpers';

describe('the demo page', () => {
  it('demo: headers, axe-clean at laptop and phone sizes, and the console drives the widget', { timeout: 180_000 }, async () => {
    const worker = await startStack();
    try {
      // Headers: a cross-origin module script needs CORS + CORP; the page has a strict CSP.
      const js = await fetch(`${worker.url}/widget.js`);
      assert.equal(js.status, 200);
      assert.match(js.headers.get('content-type') ?? '', /javascript/);
      assert.equal(js.headers.get('access-control-allow-origin'), '*');
      assert.equal(js.headers.get('cross-origin-resource-policy'), 'cross-origin');
      assert.match(js.headers.get('cache-control') ?? '', /max-age=\d+/);
      const html = await fetch(`${worker.url}/`);
      const csp = html.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /style-src 'self'(;|$)/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);

      for (const [label, viewport] of [
        ['laptop', { width: 1280, height: 900 }],
        ['phone', { width: 375, height: 740 }],
      ] as const) {
        const browser = await openBrowser(viewport);
        try {
          const { page } = browser;
          await page.goto(worker.url + '/');
          await waitForState(page, 'idle');
          assert.deepEqual(await axeViolations(page), [], `axe, ${label}, light, idle`);

          // Errors showing (submit an empty form), dark theme.
          await page.getByText('Dark', { exact: true }).click();
          assert.equal(await widget(page).getAttribute('theme'), 'dark');
          await submit(page);
          await widget(page).locator('input[aria-invalid="true"]').first().waitFor();
          assert.deepEqual(await axeViolations(page), [], `axe, ${label}, dark, field errors`);

          // Nothing is wider than the screen.
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(overflow <= 0, `${label}: the page scrolls sideways by ${overflow}px`);
          assert.deepEqual(browser.problems, [], `${label}: no console errors or CSP violations`);
        } finally {
          await browser.close();
        }
      }

      // The console drives the widget; the choices survive a reload (and so the trip to the hosted flow).
      const browser = await openBrowser();
      try {
        const { page } = browser;
        await page.goto(worker.url + '/');
        await waitForState(page, 'idle');
        await page.getByLabel('Language').selectOption('es');
        await widget(page).getByRole('group', { name: 'Fecha de nacimiento' }).waitFor(); // the Spanish dictionary's chunk arrived
        await page.getByLabel('Offer “Text me a link”').uncheck();
        // Without `sms`: this device or the phone (QR code), no "Text me a link".
        assert.equal(await widget(page).getByRole('radio').count(), 2, 'no "Text me a link" without sms');
        await page.getByText('Brand', { exact: true }).click();
        await page.getByLabel('Brand colour').fill('#aa3300');
        const primary = await widget(page).evaluate((el) => getComputedStyle(el).getPropertyValue('--kyc-color-primary').trim());
        assert.equal(primary, '#aa3300');
        await page.reload();
        await waitForState(page, 'idle');
        assert.equal(await widget(page).getAttribute('lang'), 'es');
        assert.equal(await widget(page).getAttribute('sms'), null);
        assert.equal(await page.getByLabel('Language').inputValue(), 'es');

        // "Start over": a fresh widget (no errors shown any more), an empty log, settings kept.
        await page.getByLabel('Language').selectOption('en');
        await submit(page);
        await widget(page).locator('input[aria-invalid="true"]').first().waitFor();
        await page.getByRole('button', { name: 'Start over' }).click();
        await waitForState(page, 'idle');
        assert.equal(await widget(page).locator('input[aria-invalid="true"]').count(), 0);
        assert.equal(await widget(page).getByLabel('Family name').inputValue(), '');
        assert.equal(await widget(page).getAttribute('lang'), 'en');
        await page.getByText('No events yet.').waitFor();
        assert.deepEqual(browser.problems, []);
      } finally {
        await browser.close();
      }
    } finally {
      await worker.stop();
    }
    await assertStopped(worker.url);
  });
});
