/**
 * An expired link replaced without asking (docs/handoff.md "Cross-device
 * handoff"): `POST /api/onboarding-link` with the previous `session` makes a
 * new link for the same vendor entity and the same verification, the way the
 * first went (a QR code / copied link, or this device), never a text.
 * Node, msw as the vendor, a controlled clock.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { http, HttpResponse } from 'msw';
import type { Env } from '../../worker/lib/env';
import { MAX_RENEWALS } from '../../worker/verifications/verification';
import { decodeQr } from '../support/qr';
import {
  call,
  clockedEnv,
  linkAnswer,
  okVendor,
  PARTNER,
  person,
  record,
  startHarness,
  stopHarness,
  vendor,
  vendorRequests,
  VENDOR,
  WORKER,
} from './harness';
import { flat } from '../support/state-view';

before(startHarness);
after(stopHarness);
beforeEach(() => vendor(...okVendor));

const RENEWED = 'https://flow.vendor.test/f/renewed';

/** The vendor's answer to a new link: its own URL, valid for an hour from the controlled clock; the check still running. */
function renewingVendor(clock: { now(): number }) {
  vendor(
    http.post(`${VENDOR}/idv/v2/idvalidate/onboarding-url`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({ ...linkAnswer, url: RENEWED, urlExpiry: new Date(clock.now() + 3600_000).toISOString() });
    }),
    http.post(`${VENDOR}/idv/v2/idvalidate/result`, () => HttpResponse.json({ checkStatus: 'CHECKING' })),
  );
}

const link = (e: Env, json: unknown, origin = PARTNER) =>
  call('/api/onboarding-link', { method: 'POST', json, headers: { Origin: origin } }, e);
const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;
const linkCalls = () => vendorRequests.filter((r) => r.url.endsWith('/onboarding-url'));

describe('a new link for an expired one', () => {
  it('replaces an expired handoff link: same entity and verification, nothing personal sent, the old link dead, the deadline moved', async () => {
    const { e, store, clock } = clockedEnv();
    const first = (await link(e, { ...person, handoff: true, lang: 'fr' })).json;
    const firstBack = new URL((linkCalls()[0]!.body as { successRedirectURL: string }).successRedirectURL);
    const oldDeadline = store.records.get(first.verificationId)!.deadline;

    clock.t = Date.parse(linkAnswer.urlExpiry) + 1000; // the link has expired
    assert.equal((await call(pathOf(first.url), {}, e)).status, 410, 'an expired handoff link no longer forwards');
    renewingVendor(clock);
    vendorRequests.length = 0;
    const res = await link(e, { session: first.session, lang: 'fr' });
    assert.equal(res.status, 200, res.text);
    const renewed = res.json;
    assert.equal(renewed.verificationId, first.verificationId, 'the same verification');
    assert.match(renewed.url, new RegExp(`^${WORKER}/handoff/${first.verificationId}\\?t=[A-Za-z0-9_-]{22}&l=fr$`));
    assert.notEqual(renewed.url, first.url);
    assert.equal(decodeQr(renewed.qr), renewed.url, 'the new QR code decodes to the new link');
    assert.equal(renewed.smsSent, false);
    assert.equal(renewed.claimCode, first.claimCode, 'the same code: the first device keeps showing it');
    assert.ok(!res.text.includes(RENEWED), 'the vendor URL stays with the worker');

    const sent = linkCalls()[0]!.body as Record<string, unknown>;
    assert.deepEqual(sent.entity, { entityId: linkAnswer.entity.entityId }, 'the same entity, nothing personal again');
    assert.equal(sent.sendSMS, false);
    for (const key of ['phoneNumber', 'phoneCode', 'recipientName']) assert.equal(sent[key], undefined, key);
    // A phone still in the old flow can come back: the same return secret.
    assert.equal(new URL(sent.successRedirectURL as string).searchParams.get('r'), firstBack.searchParams.get('r'));

    const v = store.records.get(first.verificationId)!;
    assert.equal(v.renewals, 1);
    assert.ok(v.deadline > oldDeadline, 'polling goes on past the first deadline');
    clock.t = oldDeadline + 1000;
    await store.runDueAlarms();
    assert.deepEqual(
      store.events.map((ev) => ev.type),
      [],
      'no verification.expired at the first link’s deadline',
    );
    assert.equal(flat(store.records.get(first.verificationId)!).expiredAt, undefined);

    // The new link forwards once, to the new hosted flow; the old one stays dead.
    const open = await call(pathOf(renewed.url), { method: 'POST' }, e);
    assert.equal(open.status, 303);
    assert.equal(open.headers.get('Location'), RENEWED);
    assert.equal((await call(pathOf(first.url), {}, e)).status, 410);
    const after = await call('/api/result', { method: 'POST', json: { session: renewed.session }, headers: { Origin: PARTNER } }, e);
    assert.equal(after.status, 200, after.text);
    assert.equal(after.json.verificationId, first.verificationId);
    assert.equal(after.json.checkStatus, 'CHECKING');
    assert.equal(after.json.phoneOpened, true, 'the new link was opened');
  });

  it('a handoff link that no longer opens says why: expired, replaced by a newer one, used on a phone, taken back', async () => {
    const { e, clock } = clockedEnv();
    const first = (await link(e, { ...person, handoff: true })).json;
    const message = async (url: string, method = 'GET') => {
      const res = await call(pathOf(url), { method }, e);
      assert.equal(res.status, 410, res.text);
      assert.match(res.text, /<h1>This link no longer works<\/h1>/, 'the same title');
      return /<p>([^<]+)<\/p>\n<\/main>/.exec(res.text)![1];
    };
    clock.t = Date.parse(linkAnswer.urlExpiry) + 1000;
    assert.match((await message(first.url))!, /^This link has expired: links work for a limited time\./);
    renewingVendor(clock);
    const renewed = (await link(e, { session: first.session })).json;
    assert.match((await message(first.url))!, /^A newer link was sent since: only the newest one works\./, 'the replaced link');
    assert.match((await message(first.url, 'POST'))!, /^A newer link was sent since/, 'its Continue too');
    assert.equal((await call(pathOf(renewed.url), { method: 'POST' }, e)).status, 303);
    // The phone's tab closed, the same code scanned again (or by another phone): it was used.
    assert.match((await message(renewed.url))!, /^It was already opened on a phone, and each link works only once\./);
    // The first device then shows a new code (issue 42): the opened link's page still says it was opened, not "replaced".
    const third = (await link(e, { session: renewed.session })).json;
    assert.match((await message(renewed.url))!, /^It was already opened on a phone/);
    assert.match((await message(first.url))!, /^A newer link was sent since/, 'the never-opened one: replaced');
    const withdrawn = await call(
      '/api/withdraw-link',
      { method: 'POST', json: { session: third.session }, headers: { Origin: PARTNER } },
      e,
    );
    assert.equal(withdrawn.status, 200, withdrawn.text);
    assert.match((await message(renewed.url))!, /^It was taken back on the screen where the check started/);
    assert.match((await message(first.url))!, /^It was taken back/, 'taken back wins: the check is over');
    // A token of no link of this verification is simply gone (nothing more is known).
    const forged = renewed.url.replace(/t=[^&]+/, `t=${'Z'.repeat(22)}`);
    assert.match((await message(forged))!, /^It was taken back/, 'a canceled verification says so for any link of it');
  });

  it('replaces a link for this device, to the page given', async () => {
    const { e, clock } = clockedEnv();
    const first = (await link(e, person)).json;
    renewingVendor(clock);
    vendorRequests.length = 0;
    const res = await link(e, { session: first.session, returnUrl: `${PARTNER}/account/verify` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.url, RENEWED);
    assert.equal(res.json.qr, undefined);
    assert.equal(
      (linkCalls()[0]!.body as { successRedirectURL: string }).successRedirectURL,
      `${PARTNER}/account/verify?kyc_return=success`,
    );
    const elsewhere = await link(e, { session: first.session, returnUrl: 'https://evil.example/' });
    assert.equal(elsewhere.status, 400);
    assert.equal(elsewhere.json.issues[0].issueLocation, 'returnUrl');
  });

  it('never renews a texted link (that would text again without the person asking)', async () => {
    const { e } = clockedEnv();
    const first = (await link(e, { ...person, sendSMS: true })).json;
    vendorRequests.length = 0;
    const res = await link(e, { session: first.session });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.json.errorCode, 'RENEWAL_NOT_ALLOWED');
    assert.equal(res.json.issues[0].issueLocation, 'session');
    assert.equal(linkCalls().length, 0, 'the vendor is not asked');
  });

  it('refuses a session that is not valid, of another site, or with partial details; the vendor is never asked', async () => {
    const { e } = clockedEnv();
    const first = (await link(e, { ...person, handoff: true })).json;
    vendorRequests.length = 0;
    const forged = await link(e, { session: `${first.session.slice(0, -2)}xx` });
    assert.equal(forged.status, 401);
    assert.equal(forged.json.issues[0].issueLocation, 'session');
    const empty = await link(e, { session: '' });
    assert.equal(empty.status, 400);
    assert.equal(empty.json.issues[0].issueLocation, 'session');
    // With a name it is a next attempt, which needs every detail.
    const mixed = await link(e, { session: first.session, name: person.name });
    assert.equal(mixed.status, 400);
    assert.ok(
      mixed.json.issues.some((i: { issueLocation: string }) => i.issueLocation === 'dateOfBirth'),
      mixed.text,
    );
    const sms = await link(e, { session: first.session, sendSMS: true });
    assert.equal(sms.status, 400, 'a new link by session is never texted');
    assert.ok(
      sms.json.issues.some((i: { issueLocation: string }) => i.issueLocation === 'sendSMS'),
      sms.text,
    );
    assert.equal(linkCalls().length, 0);
  });

  it('a renewal of a link still good answers the same link, with no vendor call and no renewal spent', async () => {
    const { e, store } = clockedEnv();
    const first = (await link(e, { ...person, handoff: true })).json;
    vendorRequests.length = 0;
    const again = await link(e, { session: first.session });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.url, first.url, 'the same single-use page for the phone');
    assert.equal(again.json.urlExpiry, first.urlExpiry);
    assert.equal(again.json.claimCode, first.claimCode);
    assert.equal(again.json.verificationId, first.verificationId);
    assert.equal(linkCalls().length, 0, 'no new vendor link');
    assert.equal(store.records.get(first.verificationId)!.renewals ?? 0, 0, 'no renewal spent');
    // Once the phone opened it, it is used: a renewal makes a new one.
    renewingVendor({ now: () => Date.now() });
    const opened = await call(pathOf(first.url), {}, e);
    assert.equal(opened.status, 200);
    const cont = await call(pathOf(first.url), { method: 'POST' }, e);
    assert.ok(cont.status < 400, cont.text);
    const renewed = await link(e, { session: first.session });
    assert.equal(renewed.status, 200, renewed.text);
    assert.equal(linkCalls().length, 1, 'a used link is renewed');
  });

  it(`ends: after the verification ended, and after ${MAX_RENEWALS} new links`, async () => {
    const { e, store, clock } = clockedEnv();
    const first = (await link(e, { ...person, handoff: true })).json;
    renewingVendor(clock);
    // Each renewal needed: its link has expired (a link still good is answered again, no new one).
    const expire = () => void (clock.t = store.records.get(first.verificationId)!.linkExpiresAt + 1000);
    for (let i = 0; i < MAX_RENEWALS; i++) {
      expire();
      assert.equal((await link(e, { session: first.session })).status, 200);
    }
    expire();
    const capped = await link(e, { session: first.session });
    assert.equal(capped.status, 409);
    assert.equal(capped.json.errorCode, 'VERIFICATION_ENDED');

    const other = (await link(e, { ...person, handoff: true })).json;
    clock.t = store.records.get(other.verificationId)!.deadline + 1000;
    await store.runDueAlarms();
    assert.equal(flat(store.records.get(other.verificationId)!).expiredReason, 'not_finished');
    vendorRequests.length = 0;
    const late = await link(e, { session: other.session });
    assert.equal(late.status, 409);
    assert.equal(late.json.errorCode, 'VERIFICATION_ENDED');
    assert.equal(linkCalls().length, 0);
  });
});
