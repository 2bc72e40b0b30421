/**
 * Bad input: submit with an invalid date of birth (in the future)
 * and no consent; the field errors show, linked to their fields, and no request
 * reaches the worker's API (watched both from the page and in the worker's log)
 * but the one page-view beacon, which carries nothing (no body, no cookie).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ALICE,
  en,
  assertStopped,
  dateOfBirth,
  dateOfBirthValue,
  fillForm,
  openBrowser,
  startStack,
  submit,
  waitForState,
  widget,
} from './helpers';
import { until } from '../support/wait';

describe('bad input', () => {
  it('bad input: future date of birth and no consent → field errors, nothing sent to the worker', { timeout: 60_000 }, async () => {
    const worker = await startStack();
    const browser = await openBrowser();
    try {
      const { page } = browser;
      const apiCalls: string[] = [];
      const beacons: (string | null)[] = [];
      page.on('request', (r) => {
        const path = new URL(r.url()).pathname;
        if (path === '/api/beacon') beacons.push(r.postData());
        // The partner's settings (its default country) are asked on load, with no body: nothing about the person.
        else if (path === '/api/settings' && r.method() === 'GET' && r.postData() === null) return;
        else if (path.startsWith('/api/')) apiCalls.push(`${r.method()} ${r.url()}`);
      });
      await page.goto(worker.url + '/');
      await waitForState(page, 'idle');
      const nextYear = new Date().getUTCFullYear() + 1;
      await fillForm(page, { ...ALICE, dateOfBirth: `${nextYear}-06-15`, consent: false });
      await submit(page);

      const w = widget(page);
      // A date in the future: the whole date is wrong, so its three fields are marked; the first one shown gets focus.
      const dob = dateOfBirth(page).locator('input').first();
      const consent = w.getByRole('checkbox');
      await w.locator('input[aria-invalid="true"]').first().waitFor();
      for (const part of ['Day', 'Month', 'Year'])
        assert.equal(await dateOfBirth(page).getByLabel(part).getAttribute('aria-invalid'), 'true', part);
      assert.equal(await consent.getAttribute('aria-invalid'), 'true');
      // Each error is the field's description (aria-describedby), as a screen reader announces it.
      assert.equal(await describedBy(dob), en.errDob);
      assert.equal(await describedBy(consent), en.errConsent);
      // The fields that were right are not marked, and keep what was typed.
      assert.equal(await w.getByLabel('Family name').getAttribute('aria-invalid'), null);
      assert.equal(await w.getByLabel('Family name').inputValue(), ALICE.familyName);
      assert.equal(await dateOfBirthValue(page), `${nextYear}-06-15`);
      // Focus goes to the first field in error.
      assert.equal(await dob.evaluate((el) => el.matches(':focus')), true);
      assert.equal(await page.locator('kyc-onboard').getAttribute('state'), 'idle');

      // Give a stray request time to show up, then check both ends.
      // A request the page sends now, after any stray one the submit could have started (the demo polls the outbox
      // when the page becomes visible): once it is seen from the page and in the worker's log, so would a stray one be.
      const polls = () => worker.output().split('"route":"/sandbox/outbox"').length;
      const before = polls();
      const seen = page.waitForRequest((r) => new URL(r.url()).pathname === '/sandbox/outbox');
      await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
      await seen;
      await until(() => polls() > before, { what: 'the outbox poll in the worker’s log', detail: () => worker.output().slice(-2000) });
      assert.deepEqual(apiCalls, [], 'the page sent nothing to /api');
      assert.ok(
        beacons.every((body) => !body),
        'the page-view beacon carries no body',
      );
      // The worker's log is readable (the demo's outbox poll is in it) …
      assert.match(worker.output(), /"route":"\/sandbox\/outbox"/);
      // … and has no /api request from the page (startWorker's own readiness probe, GET /api/__ready__, is the one /api line the worker may log.)
      assert.doesNotMatch(
        worker.output(),
        /"method":"(POST|OPTIONS)"[^\n]*"route":"\/api\/(?!beacon")/,
        'the worker logged no /api request from the page',
      );
      assert.doesNotMatch(
        worker.output(),
        /"route":"\/api\/(onboarding-link|result|ruok)"/,
        'the worker logged no /api request from the page',
      );
      assert.doesNotMatch(worker.output(), /(POST|OPTIONS) \/api\/(?!beacon\b)/, 'wrangler logged no /api request from the page');
      assert.deepEqual(browser.problems, []);
    } finally {
      await browser.close();
      await worker.stop();
    }
    await assertStopped(worker.url);
  });

  /** The text of the elements named by a control's aria-describedby (inside its shadow root). */
  async function describedBy(control: import('playwright-core').Locator): Promise<string> {
    return control.evaluate((el) => {
      const root = el.getRootNode() as Document | ShadowRoot;
      return (el.getAttribute('aria-describedby') ?? '')
        .split(/\s+/)
        .filter(Boolean)
        .map((id) => root.getElementById(id)?.textContent ?? '')
        .join(' ');
    });
  }
});
