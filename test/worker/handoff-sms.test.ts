/**
 * A texted link that a stranger's phone cannot use: the first
 * device gets a 6-digit code and never the hosted URL; the vendor's text
 * leads to its hosted flow, which returns to the worker's page; that page
 * asks for the code, only in the browser that arrived with the return secret,
 * five tries at most. Until the code is entered nothing is credited: CHECKING,
 * no token, no `verification.completed`; at the end `verification.expired`
 * with `reason: not_claimed`. The same holds for a QR code or a copied link
 * (forwarding one was the relay the code was built to stop); the
 * fifth wrong code ends the verification at once. Node, msw as the vendor, a
 * controlled clock.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Env } from '../../worker/lib/env';
import { http, HttpResponse } from 'msw';
import {
  call,
  clockedEnv,
  linkAnswer,
  okVendor,
  PARTNER,
  person,
  startHarness,
  stopHarness,
  vendor,
  vendorRequests,
  VENDOR,
  WORKER,
} from './harness';

before(startHarness);
after(stopHarness);
beforeEach(() => vendor(...okVendor));

const texted = { ...person, sendSMS: true };

/** The phone: arrives at the return page the vendor's hosted flow sends it to, keeping its cookie. */
async function arrive(e: Env, outcome: 'success' | 'error' = 'success') {
  const link = vendorRequests.find((r) => r.url.endsWith('/onboarding-url'))!.body as {
    successRedirectURL: string;
    errorRedirectURL: string;
  };
  const back = new URL(outcome === 'success' ? link.successRedirectURL : link.errorRedirectURL);
  const res = await call(`${back.pathname}${back.search}&checkId=chk-9`, {}, e);
  const cookie = (res.headers.get('Set-Cookie') ?? '').split(';')[0]!;
  return { res, cookie, path: back.pathname };
}

const enter = (e: Env, path: string, cookie: string, code: string) =>
  call(
    path,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, Origin: WORKER },
      body: new URLSearchParams({ code }).toString(),
    },
    e,
  );

const result = (e: Env, session: string) => call('/api/result', { method: 'POST', json: { session }, headers: { Origin: PARTNER } }, e);

describe('Send again and the next attempt of a texted link', () => {
  const linkCalls = () => vendorRequests.filter((r) => r.url.endsWith('/onboarding-url'));

  it('Send again texts the same verification with the same code; the first text’s link with the on-screen code completes', async () => {
    const { e } = clockedEnv();
    const first = (await call('/api/onboarding-link', { method: 'POST', json: texted }, e)).json;
    const firstText = linkCalls()[0]!.body as { successRedirectURL: string };
    const again = await call(
      '/api/onboarding-link',
      { method: 'POST', json: { session: first.session, sendSMS: true, phone: person.phone } },
      e,
    );
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.verificationId, first.verificationId, 'the same verification');
    assert.equal(again.json.claimCode, first.claimCode, 'one code across every text');
    assert.equal(again.json.smsSent, true);
    assert.equal(again.json.url, undefined, 'this device never gets the hosted URL');
    const sent = linkCalls()[1]!.body as Record<string, unknown>;
    assert.equal(sent.sendSMS, true);
    assert.deepEqual(sent.entity, { entityId: linkAnswer.entity.entityId }, 'the same entity, no details again');
    assert.equal(sent.successRedirectURL, firstText.successRedirectURL, 'the earlier text returns where the new one does');

    // The person opens the FIRST text, finishes the check there and types the code on screen.
    vendorRequests.length = 0;
    vendorRequests.push({ url: '/onboarding-url', body: firstText } as (typeof vendorRequests)[number]);
    const phone = await arrive(e);
    assert.equal(phone.res.status, 200);
    const claimed = await enter(e, phone.path, phone.cookie, again.json.claimCode);
    assert.equal(claimed.status, 200, claimed.text);
    assert.match(claimed.text, /<h1>All done<\/h1>/);
    const done = await result(e, again.json.session);
    assert.equal(done.json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.ok(done.json.resultToken);
  });

  it('Send again goes to the same number only: another is refused naming phone, and nothing is texted', async () => {
    const { e } = clockedEnv();
    const first = (await call('/api/onboarding-link', { method: 'POST', json: texted }, e)).json;
    vendorRequests.length = 0;
    const other = await call(
      '/api/onboarding-link',
      { method: 'POST', json: { session: first.session, sendSMS: true, phone: { code: '+61', number: '0412 345 679' } } },
      e,
    );
    assert.equal(other.status, 400, other.text);
    assert.equal(other.json.errorCode, 'VALIDATION_FAILED');
    assert.deepEqual(
      other.json.issues.map((i: { issueLocation: string }) => i.issueLocation),
      ['phone'],
    );
    assert.match(other.json.issues[0].issue, /the number the link was texted to/);
    assert.equal(linkCalls().length, 0, 'no text to the other number');
    // The same number, however it is written, is sent again.
    const same = await call(
      '/api/onboarding-link',
      { method: 'POST', json: { session: first.session, sendSMS: true, phone: { code: '+61', number: '412345678' } } },
      e,
    );
    assert.equal(same.status, 200, same.text);
    assert.equal(linkCalls().length, 1);
  });

  it('Send again needs the number; a session alone is still no text', async () => {
    const { e } = clockedEnv();
    const first = (await call('/api/onboarding-link', { method: 'POST', json: texted }, e)).json;
    const noNumber = await call('/api/onboarding-link', { method: 'POST', json: { session: first.session, sendSMS: true } }, e);
    assert.equal(noNumber.status, 400, noNumber.text);
    assert.equal(noNumber.json.issues[0].issueLocation, 'phone');
    const bare = await call('/api/onboarding-link', { method: 'POST', json: { session: first.session } }, e);
    assert.equal(bare.status, 409);
    assert.equal(bare.json.errorCode, 'RENEWAL_NOT_ALLOWED');
  });

  it('a next attempt by session after NO_MATCH texts the corrected details’ link: same verification and code', async () => {
    const { e, store } = clockedEnv();
    let status = 'NO_MATCH';
    vendor(
      http.post(`${VENDOR}/idv/v2/idvalidate/result`, () =>
        HttpResponse.json({ checkStatus: status, checkId: `chk-${status}`, entity: { entityId: linkAnswer.entity.entityId } }),
      ),
      ...okVendor,
    );
    const first = (await call('/api/onboarding-link', { method: 'POST', json: texted }, e)).json;
    const phone = await arrive(e);
    await result(e, first.session);
    assert.equal((await enter(e, phone.path, phone.cookie, first.claimCode)).status, 200);
    assert.equal((await result(e, first.session)).json.status, 'requires_input');

    vendorRequests.length = 0;
    const corrected = { ...texted, name: { familyName: 'Nguyen' } };
    const next = await call('/api/onboarding-link', { method: 'POST', json: { ...corrected, session: first.session } }, e);
    assert.equal(next.status, 200, next.text);
    assert.equal(next.json.verificationId, first.verificationId);
    assert.equal(next.json.claimCode, first.claimCode);
    assert.equal(next.json.smsSent, true);
    const sent = linkCalls()[0]!.body as { sendSMS: boolean; entity: { entityId: string; name: unknown } };
    assert.equal(sent.sendSMS, true);
    assert.equal(sent.entity.entityId, linkAnswer.entity.entityId);
    assert.deepEqual(sent.entity.name, { familyName: 'Nguyen' });

    // The phone comes back from the new text (a new return secret: the first was spent) and enters the same code.
    status = 'CHECKED_SUCCESS_CLEAR';
    const again = await arrive(e);
    assert.equal(again.res.status, 200, again.res.text);
    assert.equal((await enter(e, again.path, again.cookie, first.claimCode)).status, 200);
    const done = await result(e, next.json.session);
    assert.equal(done.json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.deepEqual(
      store.records.get(first.verificationId)!.attempts!.map((a) => a.checkStatus),
      ['NO_MATCH', 'CHECKED_SUCCESS_CLEAR'],
    );
  });
});

describe('a texted link with a code', () => {
  it('gives the first device a 6-digit code and no hosted URL; the vendor texts its own link back to the worker', async () => {
    const { e } = clockedEnv();
    const res = await call('/api/onboarding-link', { method: 'POST', json: texted }, e);
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.claimCode, /^\d{6}$/);
    assert.equal(res.json.url, undefined);
    assert.ok(!res.text.includes(linkAnswer.url), 'the starting device never receives the hosted URL');
    assert.equal(res.json.smsSent, true);
    const sent = vendorRequests[0]!.body as { sendSMS: boolean; successRedirectURL: string; recipientName?: string };
    assert.equal(sent.sendSMS, true);
    assert.equal(sent.recipientName, undefined, 'nothing typed goes into a text message');
    assert.match(
      sent.successRedirectURL,
      new RegExp(`^${WORKER}/handoff/${res.json.verificationId}/return\\?r=[A-Za-z0-9_-]{22}&kyc_return=success$`),
    );
  });

  it('credits nothing until the code is entered, then completes the first device with a token', async () => {
    const { e, store } = clockedEnv();
    const link = (await call('/api/onboarding-link', { method: 'POST', json: { ...texted, customerRef: 'acct-9' } }, e)).json;
    const phone = await arrive(e);
    assert.equal(phone.res.status, 200);
    assert.match(phone.res.text, /Enter the code shown on the screen where you started/);
    assert.match(phone.res.headers.get('Content-Security-Policy') ?? '', /form-action 'self'/);
    assert.match(phone.res.headers.get('Set-Cookie') ?? '', /HttpOnly/i);
    assert.match(phone.res.headers.get('Set-Cookie') ?? '', /SameSite=Strict/i);
    // The vendor says the check is done; the first device still waits.
    const before = await result(e, link.session);
    assert.equal(before.json.checkStatus, 'CHECKING');
    assert.equal(before.json.resultToken, undefined);
    assert.equal(store.events.length, 0, 'no webhook before the code');

    const claimed = await enter(e, phone.path, phone.cookie, link.claimCode.replace(/^(\d{3})/, '$1 '));
    assert.equal(claimed.status, 200, claimed.text);
    assert.match(claimed.text, /<h1>All done<\/h1>/);
    const after = await result(e, link.session);
    assert.equal(after.json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.ok(after.json.resultToken);
    assert.deepEqual(
      store.events.map((x) => x.type),
      ['verification.completed'],
    );
  });

  it('says when the phone is done (phoneReturned) while the vendor still checks: after the code, never before; a QR link likewise', async () => {
    vendor(
      okVendor[0]!,
      http.post(`${VENDOR}/idv/v2/idvalidate/result`, () => HttpResponse.json({ checkStatus: 'CHECKING' })),
    );
    const { e } = clockedEnv();
    const link = (await call('/api/onboarding-link', { method: 'POST', json: texted }, e)).json;
    const phone = await arrive(e);
    const waiting = await result(e, link.session);
    assert.equal(waiting.json.phoneReturned, undefined, 'back, but the code is not entered: still the phone’s turn');
    await enter(e, phone.path, phone.cookie, link.claimCode);
    const checking = await result(e, link.session);
    assert.equal(checking.json.checkStatus, 'CHECKING');
    assert.equal(checking.json.phoneReturned, true);

    vendorRequests.length = 0;
    const qr = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, handoff: true } }, e)).json;
    assert.equal((await result(e, qr.session)).json.phoneReturned, undefined);
    const qrPhone = await arrive(e);
    assert.equal((await result(e, qr.session)).json.phoneReturned, undefined, 'a QR link waits for its code too');
    await enter(e, qrPhone.path, qrPhone.cookie, qr.claimCode);
    const done = await result(e, qr.session);
    assert.equal(done.json.phoneReturned, true);
    assert.equal(done.json.resultToken, undefined);
  });

  it('the relay: a phone that never enters the code ends as not_claimed, never complete', async () => {
    const { e, store, clock } = clockedEnv();
    const link = (await call('/api/onboarding-link', { method: 'POST', json: texted }, e)).json;
    await arrive(e);
    for (let i = 0; i < 200 && !store.events.length; i++) {
      clock.t += 60_000;
      await store.runDueAlarms();
      if (!store.events.length) assert.equal((await result(e, link.session)).json.checkStatus, 'CHECKING');
    }
    assert.deepEqual(
      store.events.map((x) => [x.type, JSON.parse(x.body).data.reason]),
      [['verification.expired', 'not_claimed']],
    );
    const end = await result(e, link.session);
    assert.equal(end.status, 409, 'final: the first device stops waiting');
    assert.equal(end.json.errorCode, 'VERIFICATION_CLOSED');
    assert.equal(end.json.resultToken, undefined, 'no token, ever');
  });

  it('only the browser that arrived may enter the code; five wrong codes end the handoff', async () => {
    const { e, store } = clockedEnv();
    const link = (await call('/api/onboarding-link', { method: 'POST', json: texted }, e)).json;
    const phone = await arrive(e);
    const wrong = link.claimCode === '000000' ? '111111' : '000000';
    // Another browser (no cookie, or a made-up one) cannot use the page at all.
    assert.equal((await enter(e, phone.path, '', link.claimCode)).status, 410);
    assert.equal((await enter(e, phone.path, `${phone.cookie.split('=')[0]}=${'x'.repeat(22)}`, link.claimCode)).status, 410);
    // Not six digits: said so, no try spent.
    const malformed = await enter(e, phone.path, phone.cookie, '12ab');
    assert.equal(malformed.status, 400);
    assert.match(malformed.text, /role="alert"/);
    for (let left = 4; left >= 1; left--) {
      const r = await enter(e, phone.path, phone.cookie, wrong);
      assert.equal(r.status, 400);
      assert.match(r.text, new RegExp(`${left} tr(y|ies) left`));
    }
    const fifth = await enter(e, phone.path, phone.cookie, wrong);
    assert.equal(fifth.status, 410);
    assert.match(fifth.text, /This check has ended/);
    const late = await enter(e, phone.path, phone.cookie, link.claimCode);
    assert.equal(late.status, 410, 'the right code after five wrong ones does nothing');
    // Ended at once (no alarm has run): expired as not claimed, and /api/result final with no token.
    assert.deepEqual(
      store.events.map((x) => [x.type, JSON.parse(x.body).data.reason]),
      [['verification.expired', 'not_claimed']],
    );
    const ended = await result(e, link.session);
    assert.equal(ended.status, 409);
    assert.equal(ended.json.errorCode, 'VERIFICATION_CLOSED');
    assert.equal(ended.json.resultToken, undefined);
  });

  it('the relay over a copied link: the victim completes the genuine flow without the code, and nothing is credited', async () => {
    const { e, store, clock } = clockedEnv();
    // The starter types the victim's details, asks for a copied link, and forwards it.
    const link = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, handoff: true } }, e)).json;
    assert.match(link.claimCode, /^\d{6}$/);
    const open = await call(new URL(link.url).pathname + new URL(link.url).search, { method: 'POST' }, e);
    assert.equal(open.status, 303, 'the victim continues to the hosted flow');
    // The victim finishes; the vendor says CHECKED_SUCCESS_CLEAR; the victim has no code to enter.
    const phone = await arrive(e);
    assert.match(phone.res.text, /One last step/);
    assert.doesNotMatch(phone.res.text, /All done/);
    for (let i = 0; i < 200 && !store.events.length; i++) {
      const r = await result(e, link.session);
      assert.equal(r.json.checkStatus, 'CHECKING', "the starter's tab gets no outcome");
      assert.equal(r.json.resultToken, undefined);
      clock.t += 60_000;
      await store.runDueAlarms();
    }
    assert.deepEqual(
      store.events.map((x) => [x.type, JSON.parse(x.body).data.reason]),
      [['verification.expired', 'not_claimed']],
    );
    assert.equal((await result(e, link.session)).json.errorCode, 'VERIFICATION_CLOSED');
  });
});
