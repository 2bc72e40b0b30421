/**
 * Server first, end to end: the real worker (`wrangler dev`, a
 * real local D1, the sandbox) and the example partner backend with its server
 * key. The backend starts the verification (`POST /v1/verifications` through
 * its openapi-fetch client typed from the OpenAPI document) and hands the page
 * a client secret and a prefill; in Chromium the form shows the prefilled
 * name and date of birth, the person adds the rest and goes through the hosted
 * flow; on `kyc-complete` the backend reads `GET /v1/verifications/{id}
 * ?include=person` and compares the verified name and date of birth with the
 * account. A second tab opened while the link is out resumes the same hosted
 * flow (no second vendor link); the result token carries the server's
 * `customer_ref`, and the list by customerRef finds the verification.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { newServerKey } from '../../worker/server-api/keys';
import { assertStopped, dateOfBirthValue, freePort, openBrowser, startStack, submit, waitForState, widget } from './helpers';
import { until } from '../support/wait';

describe('start from the server', () => {
  it(
    'server first: client secret and prefill from the partner’s server, the verified person read back and compared',
    { timeout: 150_000 },
    async () => {
      const port = await freePort();
      const partner = `http://127.0.0.1:${port}`;
      const serverKey = newServerKey('test');
      const secret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
      const worker = await startStack({
        ALLOWED_ORIGINS: partner,
        PARTNER_SERVER_KEYS: serverKey,
        WEBHOOK_URL: `${partner}/kyc/webhooks`,
        WEBHOOK_SECRET: secret,
      });
      const backend = spawn(process.execPath, ['examples/partner-backend/server.mjs'], {
        env: {
          ...process.env,
          KYC_WORKER: worker.url,
          PORT: String(port),
          WEBHOOK_SECRET: secret,
          KYC_SERVER_KEY: serverKey,
          KYC_TEST_MODE: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await new Promise<void>((ok, fail) => {
        backend.stdout.on('data', (d) => String(d).includes('partner backend on') && ok());
        backend.once('exit', (code) => fail(new Error(`backend exited ${code}`)));
      });
      const v1 = (path: string) => fetch(worker.url + path, { headers: { Authorization: `Bearer ${serverKey}` } });
      const browser = await openBrowser();
      try {
        const { page, context } = browser;
        await page.goto(partner + '/');
        const account = (await page.locator('#account').textContent())!;
        await waitForState(page, 'idle');
        const w = widget(page);
        // The prefill from the account: shown for the person to confirm, never in the markup.
        await assert.doesNotReject(w.getByLabel('Family name').waitFor());
        await page.waitForFunction(() => {
          const el = document.querySelector('kyc-onboard');
          return el?.shadowRoot?.querySelector<HTMLInputElement>('input[name="familyName"]')?.value === 'Lovelace';
        });
        assert.equal(await w.getByLabel('Given name').inputValue(), 'Ada');
        const prefilledDob = await dateOfBirthValue(page);
        assert.match(prefilledDob, /^\d{4}-\d{1,2}-\d{1,2}$/);
        assert.equal(await page.locator('kyc-onboard').getAttribute('client-secret'), null, 'the secret is a property, not markup');
        assert.doesNotMatch(await page.content(), /_secret_/);
        // The country code follows the browser's region (en-US here): an Australian number says so.
        await w.getByLabel('Country code').fill('+61');
        await w.getByLabel('Mobile number').fill('412 345 678');
        await w.getByRole('checkbox').check();
        await submit(page);
        await page.waitForURL(/\/sandbox\/flow\//);
        const hosted = page.url();

        // Another tab of the same account while the link is out: the same hosted flow again, no second link.
        const other = await context.newPage();
        await other.goto(partner + '/');
        await other.waitForURL(/\/sandbox\/flow\//);
        assert.equal(other.url(), hosted, 'the same link, not a second vendor link');
        await other.close();

        await page.getByRole('button', { name: 'Complete verification' }).click();
        await page.waitForURL((u) => u.origin === partner);
        await waitForState(page, 'complete');
        await page.getByText('Server verified: verified, matches the account').waitFor();

        // What the partner's server can read back: the list by its reference, the token with its reference.
        const list = (await (await v1(`/v1/verifications?customerRef=${account}`)).json()) as {
          data: { verificationId: string; status: string; customerRefSource: string }[];
        };
        assert.equal(list.data.length, 1);
        assert.equal(list.data[0]!.status, 'final');
        assert.equal(list.data[0]!.customerRefSource, 'server');
        const one = (await (await v1(`/v1/verifications/${list.data[0]!.verificationId}?include=person`)).json()) as {
          resultToken: string;
          person: { name: { givenName: string; familyName: string }; dateOfBirth: { dateOfBirth: string } };
        };
        assert.equal(decodeJwt(one.resultToken).customer_ref, account);
        assert.equal(one.person.name.familyName, 'Lovelace');
        assert.equal(one.person.name.givenName, 'Ada');
        const [y, m, d] = prefilledDob.split('-');
        assert.equal(one.person.dateOfBirth.dateOfBirth, `${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`);

        // The webhook, matched by the verificationId the server started.
        let known: { webhook?: { type: string; verificationId: string } } = {};
        await until(
          async () => {
            known = await (await fetch(`${partner}/kyc/accounts/${account}`)).json();
            return Boolean(known.webhook);
          },
          { what: 'the webhook at the partner', timeoutMs: 30_000, detail: () => JSON.stringify(known) },
        );
        assert.equal(known.webhook?.type, 'verification.completed');
        assert.equal(known.webhook?.verificationId, list.data[0]!.verificationId);
      } finally {
        await browser.close();
        backend.kill();
        await worker.stop();
      }
      await assertStopped(worker.url);
    },
  );
});
