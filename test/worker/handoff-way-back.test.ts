/**
 * "Change my number" after a text (`POST /api/withdraw-link`): the text
 * already out still leads to the vendor's hosted flow (the vendor has no way
 * to take a text back), but the worker's end of it is void. A phone that
 * finishes that flow lands on the calm "This link no longer works" page, its
 * code credits nobody, and the next text, to the corrected number, is a new
 * verification that completes. Node, msw as the vendor, a controlled clock.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Env } from '../../worker/lib/env';
import { call, clockedEnv, okVendor, PARTNER, person, startHarness, stopHarness, vendor, vendorRequests, WORKER } from './harness';
import { flat } from '../support/state-view';

before(startHarness);
after(stopHarness);
beforeEach(() => vendor(...okVendor));

const texted = { ...person, sendSMS: true };
/** The worker's return page the vendor sends the phone back to, from the newest text's link. */
const backOf = () =>
  new URL(
    (vendorRequests.filter((r) => r.url.endsWith('/onboarding-url')).at(-1)!.body as { successRedirectURL: string }).successRedirectURL,
  );
const result = (e: Env, session: string) => call('/api/result', { method: 'POST', json: { session }, headers: { Origin: PARTNER } }, e);

async function enterCode(e: Env, back: URL, cookie: string, code: string) {
  return call(
    back.pathname,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: WORKER, ...(cookie ? { Cookie: cookie } : {}) },
      body: new URLSearchParams({ code }).toString(),
    },
    e,
  );
}

describe('"Change my number" after a text', () => {
  it('the old text’s link, finished on a phone, gets the calm page and credits nobody; the corrected number’s text completes', async () => {
    const { e, store } = clockedEnv();
    const wrong = (
      await call('/api/onboarding-link', { method: 'POST', json: { ...texted, phone: { code: '+61', number: '0412 345 679' } } }, e)
    ).json;
    const oldBack = backOf();
    const withdrawn = await call(
      '/api/withdraw-link',
      { method: 'POST', json: { session: wrong.session }, headers: { Origin: PARTNER } },
      e,
    );
    assert.equal(withdrawn.status, 200, withdrawn.text);

    // Whoever has the old text finishes the vendor's flow; the vendor sends the phone back to the worker.
    const landed = await call(`${oldBack.pathname}${oldBack.search}&checkId=chk-old`, {}, e);
    assert.equal(landed.status, 410);
    assert.match(landed.headers.get('Content-Type') ?? '', /text\/html/);
    assert.match(landed.text, /<h1>This link no longer works<\/h1>/, 'a page the person understands, not an error');
    assert.match(landed.text, /It was taken back on the screen where the check started/, 'and why, truly');
    assert.equal(landed.headers.get('Set-Cookie'), null, 'no browser key for a void link');
    const typed = await enterCode(e, oldBack, '', wrong.claimCode);
    assert.ok(typed.status >= 400 && typed.status < 500, `the code is refused (${typed.status})`);
    assert.doesNotMatch(typed.text, /All done/);
    assert.equal((await result(e, wrong.session)).json.errorCode, 'VERIFICATION_CLOSED');
    assert.equal(flat(store.records.get(wrong.verificationId)!).finalAt, undefined, 'nothing credited');

    // The form comes back with its values; the corrected number gets a text of a new verification.
    const right = (await call('/api/onboarding-link', { method: 'POST', json: texted }, e)).json;
    assert.notEqual(right.verificationId, wrong.verificationId);
    const back = backOf();
    const phone = await call(`${back.pathname}${back.search}&checkId=chk-new`, {}, e);
    assert.equal(phone.status, 200, phone.text);
    const cookie = (phone.headers.get('Set-Cookie') ?? '').split(';')[0]!;
    const done = await enterCode(e, back, cookie, right.claimCode);
    assert.match(done.text, /<h1>All done<\/h1>/);
    assert.equal((await result(e, right.session)).json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
  });
});
