/**
 * Trusted outcomes end to end: the example partner backend
 * (examples/partner-backend, its own process and origin) serves a page with
 * `<kyc-onboard customer-ref=…>` set from its own session. The person goes
 * through the hosted flow; the page hands `resultToken` to the backend, which
 * verifies it against the worker's JWKS for the right account; the worker's
 * signed webhook reaches the backend too. A synthetic `kyc-complete`
 * dispatched on the page is refused by the backend.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { ALICE, assertStopped, fillForm, freePort, openBrowser, startStack, submit, waitForState } from './helpers';
import { until } from '../support/wait';

describe('trusted outcomes', () => {
  it(
    'trusted outcomes: the partner backend verifies the token and the webhook for its own account; a forged event is refused',
    { timeout: 120_000 },
    async () => {
      const port = await freePort();
      const partner = `http://127.0.0.1:${port}`;
      const secret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
      const worker = await startStack({
        ALLOWED_ORIGINS: partner,
        WEBHOOK_URL: `${partner}/kyc/webhooks`,
        WEBHOOK_SECRET: secret,
        RESULT_POLL_SECONDS: '5',
        RESULT_POLL_MAX_SECONDS: '10',
      });
      const backend = spawn(process.execPath, ['examples/partner-backend/server.mjs'], {
        env: { ...process.env, KYC_WORKER: worker.url, PORT: String(port), WEBHOOK_SECRET: secret, KYC_TEST_MODE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await new Promise<void>((ok, fail) => {
        backend.stdout.on('data', (d) => String(d).includes('partner backend on') && ok());
        backend.once('exit', (code) => fail(new Error(`backend exited ${code}`)));
      });
      const browser = await openBrowser();
      try {
        const { page } = browser;
        await page.goto(partner + '/');
        const account = (await page.locator('#account').textContent())!;
        await waitForState(page, 'idle');
        await fillForm(page, ALICE);
        await submit(page);
        await page.waitForURL(/\/sandbox\/flow\//);
        await page.getByRole('button', { name: 'Complete verification' }).click();
        await page.waitForURL((u) => u.origin === partner);
        await waitForState(page, 'complete');
        await page.getByText('Server verified: verified').waitFor();

        // The webhook arrives by itself (the worker's delivery queue), for the same account.
        let known: {
          token?: { verificationId: string; checkStatus: string };
          webhook?: { type: string; verificationId: string; checkStatus: string };
        } = {};
        await until(
          async () => {
            known = await (await fetch(`${partner}/kyc/accounts/${account}`)).json();
            return Boolean(known.webhook);
          },
          { what: 'the webhook at the partner', timeoutMs: 30_000, detail: () => JSON.stringify(known) },
        );
        assert.equal(known.token?.checkStatus, 'CHECKED_SUCCESS_CLEAR');
        assert.equal(known.webhook?.type, 'verification.completed');
        assert.equal(known.webhook?.checkStatus, 'CHECKED_SUCCESS_CLEAR');
        assert.equal(known.webhook?.verificationId, known.token?.verificationId);

        // A person who edits the page cannot make the partner believe anything.
        await page.evaluate(() =>
          document.querySelector('kyc-onboard')!.dispatchEvent(
            new CustomEvent('kyc-complete', {
              bubbles: true,
              composed: true,
              detail: {
                checkStatus: 'CHECKED_SUCCESS_CLEAR',
                verificationId: 'vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ',
                resultToken: 'forged.token.here',
              },
            }),
          ),
        );
        await page.getByText(/Server refused: token refused/).waitFor();
        const posted = await fetch(`${partner}/kyc/result-token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ status: 'CHECKED_SUCCESS_CLEAR' }),
        });
        assert.equal(posted.status, 401, 'a status posted straight to the backend is refused');
      } finally {
        await browser.close();
        backend.kill();
        await worker.stop();
      }
      await assertStopped(worker.url);
    },
  );
});
