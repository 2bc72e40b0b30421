/**
 * The vendor rules of docs/vendors.md on `npm start`'s stack, end to end:
 *   - a verification started on idv stays on idv when idv goes down (the demo
 *     console's failover and take-down switch, in Chromium): back from idv's
 *     hosted flow the page says the service is unavailable with "Try again"
 *     (502 VENDOR_ERROR, retryable), then waits, checking; nothing moves to
 *     Stripe (no new link, no failover, `/v1` open), and once idv is back
 *     the waiting page completes the same verification on idv;
 *   - entity search for a partner on Stripe is `501 CAPABILITY_UNAVAILABLE`
 *     naming stripe and entitySearch (over `/v1`, the demo partner's key);
 *   - a live Stripe key beside the Stripe double is `500 MISCONFIGURED`
 *     naming STRIPE_SECRET_KEY, and the key is nowhere in the answer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ALICE, assertStopped, en, fillForm, recordedEvents, startStack, submit, waitForState, widget, withDemoPage } from './helpers';
import { until } from '../support/wait';

type Json = Record<string, any>;

interface Funnel {
  partners: { partnerId: string; failovers: number; byVendor: Record<string, { linkCreated: number }> }[];
}

/** The demo console's "Vendors and failover" panel on `page`. */
const vendorsPanel = (page: Page) => page.getByRole('region', { name: 'Vendors and failover' });

/** The demo partners' server keys, as the demo console shows them on this machine. */
async function serverKeys(url: string): Promise<{ partnerId: string; serverKey: string }[]> {
  return ((await (await fetch(`${url}/sandbox/demo/server-keys`)).json()) as { partners: { partnerId: string; serverKey: string }[] })
    .partners;
}

describe('the vendor rules end to end', () => {
  it('a verification started on idv stays on idv while idv is down (it waits), then completes on idv', { timeout: 180_000 }, async () => {
    await withDemoPage(
      async ({ worker, browser, page }) => {
        const { context } = browser;
        await vendorsPanel(page).getByText('idv, then Stripe').click();
        await vendorsPanel(page)
          .getByText(/idv, then Stripe \(failover before start\)/)
          .waitFor();

        // Started on idv: its hosted flow; the partner's server sees it open.
        await fillForm(page, ALICE);
        await submit(page);
        await page.waitForURL(/\/sandbox\/flow\//);
        const keys = await serverKeys(worker.url);
        const v1 = async (path: string) => {
          for (const p of keys) {
            const res = await fetch(`${worker.url}/v1${path}`, { headers: { Authorization: `Bearer ${p.serverKey}` } });
            const body = (await res.json()) as Json;
            if (res.status === 200 && (body.data === undefined || body.data.length > 0)) return body;
          }
          throw new Error(`no demo partner has ${path}`);
        };
        const id = String((await v1('/verifications?limit=1')).data[0].verificationId);

        // The demo console in another tab takes idv down while the person is at idv's hosted flow.
        const console2 = await context.newPage();
        await console2.goto(worker.url + '/');
        await vendorsPanel(console2).getByRole('button', { name: 'Take idv down' }).click();
        await vendorsPanel(console2).getByRole('button', { name: 'Bring idv back up' }).waitFor();

        // The person finishes at idv and comes back: the page asks for the result, and idv does not answer.
        const results: number[] = [];
        const asked: string[] = [];
        page.on('request', (r) => {
          if (new URL(r.url()).pathname.startsWith('/api/'))
            asked.push(`${new Date().toISOString().slice(11, 19)} ${r.method()} ${new URL(r.url()).pathname}`);
        });
        page.on('response', (r) => {
          if (new URL(r.url()).pathname === '/api/result') results.push(r.status());
        });
        await page.getByRole('button', { name: 'Complete verification' }).click();
        await page.waitForURL((u) => u.origin === worker.url && u.pathname === '/');
        // Back from idv with idv down: the vendor's retryable error (502 VENDOR_ERROR), with "Try again".
        const alert = widget(page).getByRole('alert');
        await waitForState(page, 'error', 60_000);
        const errors = (await recordedEvents(page)).filter((e) => e.type === 'kyc-error');
        assert.deepEqual(
          errors.map((e) => ({ ...e.detail, requestId: 'r' })),
          [{ errorCode: 'VENDOR_ERROR', requestId: 'r', retryable: true, status: 502 }],
        );
        assert.deepEqual(results, [502]);
        // "Try again": the page waits, checking (the worker answers from the verification's record), and nothing moves.
        await alert.getByRole('button', { name: en.retry }).click();
        await until(async () => results.length >= 4, {
          what: 'three answers to the page checking while idv is down',
          timeoutMs: 60_000,
          detail: () => `answers ${results.join(', ')}; asked ${asked.join('; ')}`,
        });
        assert.equal(await page.locator('kyc-onboard').getAttribute('state'), 'checking', 'the page waits');
        assert.deepEqual(
          results.slice(1),
          results.slice(1).map(() => 200),
        );
        assert.equal((await recordedEvents(page)).filter((e) => e.type === 'kyc-complete').length, 0, 'no outcome');
        // Nothing moved: no new link, no second verification, still open and idv's, no failover, no link by Stripe.
        assert.equal((await recordedEvents(page)).filter((e) => e.type === 'kyc-link').length, 0, 'no new link on the way back');
        assert.equal((await v1('/verifications?limit=5')).data.length, 1, 'no second verification');
        const during = await v1(`/verifications/${id}`);
        assert.equal(during.status, 'open', 'still open while idv is down');
        assert.equal(during.result, undefined);
        assert.equal(during.vendor ?? 'idv', 'idv');
        const funnel = ((await (await fetch(`${worker.url}/ops/api/funnel`)).json()) as Funnel).partners;
        assert.equal(funnel.find((p) => p.partnerId === 'demo-a')?.failovers ?? 0, 0, 'no failover for a verification under way');
        assert.equal(funnel.find((p) => p.partnerId === 'demo-a')?.byVendor.stripe?.linkCreated ?? 0, 0, 'Stripe made no link');

        // idv back: the page that waited completes the same verification, on idv.
        await vendorsPanel(console2).getByRole('button', { name: 'Bring idv back up' }).click();
        await vendorsPanel(console2).getByRole('button', { name: 'Take idv down' }).waitFor();
        await waitForState(page, 'complete', 60_000);
        const complete = (await recordedEvents(page)).find((e) => e.type === 'kyc-complete')!.detail;
        assert.equal(complete.verificationId, id, 'the same verification');
        assert.equal((complete.result as Json).vendor, 'idv');
        assert.equal((complete.result as Json).outcome, 'verified');
        const after = await v1(`/verifications/${id}`);
        assert.equal(after.status, 'final');
        assert.equal(after.result.vendor, 'idv', 'completed where it started');
        assert.equal(after.result.outcome, 'verified');
      },
      {},
      { recordEvents: true },
    );
  });

  it(
    'entity search for a partner on Stripe is 501 CAPABILITY_UNAVAILABLE naming stripe and entitySearch',
    { timeout: 90_000 },
    async () => {
      const worker = await startStack({ KYC_VENDOR: 'stripe' });
      try {
        let checked = 0;
        for (const p of await serverKeys(worker.url)) {
          const auth = { Authorization: `Bearer ${p.serverKey}` };
          const caps = (await (await fetch(`${worker.url}/v1/capabilities`, { headers: auth })).json()) as Json;
          if (caps.vendors?.[0]?.vendor !== 'stripe') continue;
          const res = await fetch(`${worker.url}/v1/entities/search`, {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'application/json' },
            body: JSON.stringify({ name: { givenName: 'Ann', familyName: 'Lee' }, dateOfBirth: { dateOfBirth: '1990-01-02' } }),
          });
          const body = (await res.json()) as Json;
          assert.equal(res.status, 501, JSON.stringify(body));
          assert.equal(body.errorCode, 'CAPABILITY_UNAVAILABLE');
          assert.match(String(body.errorMsg), /stripe/);
          assert.deepEqual(body.issues, [{ issue: 'is not offered by stripe', issueLocation: 'entitySearch' }]);
          checked++;
        }
        assert.ok(checked > 0, 'a demo partner on stripe was asked');
      } finally {
        await worker.stop();
      }
      await assertStopped(worker.url);
    },
  );

  it(
    'a live Stripe key beside the Stripe double is 500 MISCONFIGURED naming STRIPE_SECRET_KEY, without the key',
    { timeout: 90_000 },
    async () => {
      const live = 'sk_live_e2eLiveKeyNeverShown0123';
      // The double named explicitly: without STRIPE_API_BASE, a key set makes Stripe the real one (worker/config.ts).
      const worker = await startStack({ KYC_VENDOR: 'stripe', STRIPE_API_BASE: 'sandbox', STRIPE_SECRET_KEY: live });
      try {
        for (const [path, init] of [
          ['/api/settings', {}],
          ['/api/onboarding-link', { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: worker.url }, body: '{}' }],
        ] as const) {
          const res = await fetch(worker.url + path, init);
          const text = await res.text();
          assert.equal(res.status, 500, `${path}: ${text}`);
          const body = JSON.parse(text) as Json;
          assert.equal(body.errorCode, 'MISCONFIGURED');
          assert.ok(
            (body.issues as Json[]).some((i) => i.issueLocation === 'STRIPE_SECRET_KEY'),
            `${path} names STRIPE_SECRET_KEY: ${text}`,
          );
          assert.ok(!text.includes(live) && !text.includes('e2eLiveKey'), `${path}: the key is not in the answer`);
        }
        assert.ok(!worker.output().includes(live), 'nor in the log');
      } finally {
        await worker.stop();
      }
      await assertStopped(worker.url);
    },
  );
});
