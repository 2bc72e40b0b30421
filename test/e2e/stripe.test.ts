/**
 * The demo partner on Stripe (`KYC_VENDOR=stripe`, the Stripe double), end to
 * end on `npm start`'s stack in Chromium: the form, the double's hosted page,
 * "Verify", back to `complete`; the outcome in our words in the browser's
 * event and token, in `/v1` (`vendor: stripe`) and in the partner's signed
 * webhook; and a forged `Stripe-Signature` changes nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALICE, fillForm, recordedEvents, submit, waitForState, withDemoPage } from './helpers';
import { until } from '../support/wait';

type Json = Record<string, any>;

describe('the demo partner on Stripe', () => {
  it(
    'stripe: form → Stripe double → Verify → complete; /v1, the token and the webhook say verified at stripe',
    { timeout: 120_000 },
    async () => {
      await withDemoPage(
        async ({ worker, browser, page }) => {
          await fillForm(page, ALICE);
          await submit(page);
          await page.waitForURL(/\/sandbox\/stripe\/flow\//);

          // The demo partners' server keys, as the demo console shows them on this machine.
          const keys = (await (await fetch(`${worker.url}/sandbox/demo/server-keys`)).json()) as {
            partners: { partnerId: string; serverKey: string }[];
          };
          const v1 = async (path: string, key: string) => {
            const res = await fetch(`${worker.url}/v1${path}`, { headers: { Authorization: `Bearer ${key}` } });
            return { status: res.status, json: (await res.json()) as Json };
          };
          // The page's partner: the one whose list has the verification just started.
          let partner: { partnerId: string; serverKey: string } | undefined;
          let open: Json | undefined;
          for (const p of keys.partners) {
            const list = await v1('/verifications?limit=1', p.serverKey);
            if (list.status === 200 && list.json.data.length) [partner, open] = [p, list.json.data[0] as Json];
          }
          assert.ok(partner && open, 'the demo page’s partner has the verification');
          const id = String(open.verificationId);
          const before = await v1(`/verifications/${id}`, partner.serverKey);
          assert.equal(before.json.status, 'open');
          assert.equal(before.json.result, undefined);

          // A forged Stripe event claiming the session was verified: refused, and nothing changes.
          const forged = JSON.stringify({
            id: 'evt_forged',
            object: 'event',
            type: 'identity.verification_session.verified',
            data: { object: { id: 'vs_forged', object: 'identity.verification_session', status: 'verified', client_reference_id: id } },
          });
          const t = Math.floor(Date.now() / 1000);
          const refused = await fetch(`${worker.url}/vendor-webhooks/stripe/${partner.partnerId}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Stripe-Signature': `t=${t},v1=${'0'.repeat(64)}` },
            body: forged,
          });
          assert.equal(refused.status, 400);
          const still = await v1(`/verifications/${id}`, partner.serverKey);
          assert.equal(still.json.status, 'open', 'a forged event credits nothing');
          assert.equal(still.json.result, undefined);

          await page.getByRole('button', { name: 'Verify' }).click();
          await page.waitForURL((u) => u.origin === worker.url && u.pathname === '/');
          await waitForState(page, 'complete');

          // The browser's event: the outcome in our words, and a token whose claims say the same.
          const complete = (await recordedEvents(page)).find((e) => e.type === 'kyc-complete')!.detail;
          assert.equal(complete.verificationId, id);
          assert.deepEqual(complete.result, { outcome: 'verified', vendor: 'stripe', vendorStatus: 'verified' });
          assert.equal(complete.vendor, 'stripe');
          const claims = JSON.parse(Buffer.from(String(complete.resultToken).split('.')[1]!, 'base64url').toString()) as Json;
          assert.deepEqual(claims.result, { outcome: 'verified', vendor: 'stripe', vendorStatus: 'verified' });
          assert.equal(claims.vendor, 'stripe');
          // The bank's next step for a failed check (its outcome-failed slot) is not shown to a verified person.
          await page.getByText('Thanks, you’re verified.').waitFor();
          assert.equal(await page.getByText(/visit any Harbourline branch/).isVisible(), false, 'no failure next step on success');

          // The partner's server reads the same.
          const after = await v1(`/verifications/${id}`, partner.serverKey);
          assert.equal(after.json.status, 'final');
          assert.deepEqual(after.json.result, { outcome: 'verified', vendor: 'stripe', vendorStatus: 'verified' });

          // The partner's signed webhook (the demo receiver checks the signature and keeps what verifies).
          const deliveries = await until(
            async () => {
              const d = (await (await fetch(`${worker.url}/sandbox/demo-webhooks/${id}`)).json()) as { deliveries: Json[] };
              return d.deliveries.find((x) => x.type === 'verification.completed');
            },
            { what: 'the signed verification.completed', timeoutMs: 30_000 },
          );
          assert.equal(deliveries.signature, 'verified');
          assert.equal(deliveries.outcome, 'verified', "the webhook's result.outcome, in our words");
          assert.equal(deliveries.vendor, 'stripe');
          assert.deepEqual(browser.problems, [], 'no console errors or CSP violations');
        },
        { KYC_VENDOR: 'stripe' },
        { recordEvents: true },
      );
    },
  );
});
