/**
 * A partner page on another origin (a second local port) loads the
 * widget with `<script type="module" src="http://127.0.0.1:<worker>/widget.js">`.
 * With that origin on ALLOWED_ORIGINS the whole flow works, and the chunks the
 * script loads come with the same CORS and CORP headers; without it the script
 * still loads, and the /api call gets a 403 ORIGIN_NOT_ALLOWED the page can
 * read: the widget says the site is not set up (not "check your connection"),
 * with no "Try again", fires `kyc-error` with `retryable: false`, and tells the
 * developer in the console what to fix.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ALICE,
  en,
  assertStopped,
  fillForm,
  openBrowser,
  recordEvents,
  recordedEvents,
  startStack,
  staticServer,
  submit,
  waitForState,
  widget,
} from './helpers';

const partnerPage = (workerUrl: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Partner shop</title>
<script type="module" src="${workerUrl}/widget.js"></script>
</head>
<body>
<h1>Partner shop: verify to continue</h1>
<kyc-onboard endpoint="${workerUrl}/api"></kyc-onboard>
</body>
</html>`;

async function partnerAndWorker(allowPartner: boolean) {
  // The partner's server listens first (its pages filled in once the worker runs): the worker has to know
  // the partner's origin before it starts, and a port only picked, not held, could be taken by the stack meanwhile.
  const pages: Record<string, string> = {};
  const partner = await staticServer(pages);
  const partnerOrigin = partner.url;
  const worker = await startStack(allowPartner ? { ALLOWED_ORIGINS: partnerOrigin } : {}).catch(async (err: unknown) => {
    await partner.stop(); // or its open server keeps the test's process alive
    throw err;
  });
  pages['/'] = pages['/shop/verify'] = partnerPage(worker.url);
  return { worker, partner, partnerOrigin };
}

describe('a cross-origin partner page', () => {
  it('cross-origin partner on ALLOWED_ORIGINS: the script loads and the whole flow works', { timeout: 90_000 }, async () => {
    const { worker, partner, partnerOrigin } = await partnerAndWorker(true);
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await recordEvents(page);
      const widgetJs = page.waitForResponse((r) => r.url() === `${worker.url}/widget.js`);
      // The run chunk, fetched from beside widget.js when the person first focuses the form.
      const runChunk = page.waitForResponse((r) => r.url().startsWith(`${worker.url}/kyc-onboard-run-`));
      await page.goto(`${partnerOrigin}/shop/verify`);
      const res = await widgetJs;
      assert.equal(res.status(), 200);
      assert.equal(res.headers()['access-control-allow-origin'], '*');
      assert.equal(res.headers()['cross-origin-resource-policy'], 'cross-origin');

      await waitForState(page, 'idle');
      await fillForm(page, ALICE);
      const chunk = await runChunk;
      assert.equal(chunk.status(), 200);
      assert.equal(chunk.headers()['access-control-allow-origin'], '*');
      assert.equal(chunk.headers()['cross-origin-resource-policy'], 'cross-origin');
      assert.match(chunk.headers()['cache-control'] ?? '', /immutable/);
      await submit(page);
      await page.waitForURL(new RegExp(`^${worker.url}/sandbox/flow/`));
      await page.getByRole('button', { name: 'Complete verification' }).click();
      // Back on the partner's own page, not the worker's.
      await page.waitForURL((u) => u.origin === partnerOrigin && u.pathname === '/shop/verify');
      await waitForState(page, 'complete');
      const complete = (await recordedEvents(page)).find((e) => e.type === 'kyc-complete');
      assert.equal(complete?.detail.checkStatus, 'CHECKED_SUCCESS_CLEAR');
      assert.deepEqual(browser.problems, []);
    } finally {
      await browser.close();
      await partner.stop();
      await worker.stop();
    }
    await assertStopped(worker.url);
  });

  it(
    'cross-origin partner NOT on ALLOWED_ORIGINS: a readable 403, "contact the site" (not "check your connection"), retryable false, the fix in the console',
    { timeout: 90_000 },
    async () => {
      const { worker, partner, partnerOrigin } = await partnerAndWorker(false);
      const browser = await openBrowser();
      try {
        const { page } = browser;
        const consoleErrors: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') consoleErrors.push(m.text());
        });
        await recordEvents(page);
        await page.goto(`${partnerOrigin}/`);
        // The script loaded from the worker's origin: the element is defined and rendered.
        await waitForState(page, 'idle');
        assert.equal(await page.evaluate(() => !!customElements.get('kyc-onboard')), true);

        await fillForm(page, ALICE);
        await submit(page);
        await waitForState(page, 'error', 20_000);
        const errors = (await recordedEvents(page)).filter((e) => e.type === 'kyc-error');
        assert.equal(errors.length, 1);
        // The refusal is readable: the widget knows it is the site's setup, not the person's connection.
        assert.deepEqual(
          { ...errors[0]!.detail, requestId: undefined },
          { errorCode: 'ORIGIN_NOT_ALLOWED', retryable: false, status: 403, requestId: undefined },
        );
        assert.ok(errors[0]!.detail.requestId, 'the request id, for support');
        const alert = widget(page).getByRole('alert');
        assert.equal(await alert.count(), 1);
        assert.equal((await alert.textContent())?.trim(), en.errSetup);
        assert.doesNotMatch((await alert.textContent()) ?? '', /connect/i);
        // No "Try again" that could never work.
        assert.equal(await widget(page).getByRole('button', { name: 'Try again' }).count(), 0);
        // The developer is told what to fix.
        assert.ok(
          consoleErrors.some((m) => m.includes('ALLOWED_ORIGINS') && m.includes(partnerOrigin)),
          consoleErrors.join('\n'),
        );
        assert.equal(new URL(page.url()).origin, partnerOrigin, 'the browser never left the partner page');
        // The worker never allowed the origin.
        assert.doesNotMatch(worker.output(), /"route":"\/api\/onboarding-link","status":200/);
      } finally {
        await browser.close();
        await partner.stop();
        await worker.stop();
      }
      await assertStopped(worker.url);
    },
  );
});
