/**
 * One code per verification across every link: "Send again" (and a renewed
 * QR link) makes a new link, and so a new check at the vendor, yet the person
 * may complete any of them. The vendor double here does what the sandbox
 * does: each link is a check of its own, a result asked by entity answers the
 * newest check only, and one asked by check id answers that check (of that
 * entity). The worker credits whichever link the person completed, and only
 * checks the vendor itself named: a check id a browser brings is never asked
 * about. Node, msw as the vendor, a controlled clock.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import fc from 'fast-check';
import { http, HttpResponse } from 'msw';
import type { Env } from '../../worker/lib/env';
import { redacted } from '../../worker/verifications/lifecycle';
import {
  call,
  clockedEnv,
  linkAnswer,
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
import { nextTurn } from '../support/wait';

before(startHarness);
after(stopHarness);

const ENTITY = linkAnswer.entity.entityId;

interface Check {
  checkId: string;
  status: string;
  successRedirectURL: string;
  url: string;
}

/** The vendor: a check per link, asked about by entity (the newest) or by id; each answer after `gate` lets it go. */
function checksVendor(clock: { now(): number }, gate: (what: string) => Promise<void> = async () => undefined) {
  const checks: Check[] = [];
  vendor(
    http.post(`${VENDOR}/idv/v2/idvalidate/onboarding-url`, async ({ request }) => {
      await record(request);
      await gate('a new link');
      const body = (await request.json()) as { successRedirectURL: string };
      const n = checks.length + 1;
      const check = {
        checkId: `chk-${n}`,
        status: 'CHECKING',
        successRedirectURL: body.successRedirectURL,
        url: `https://flow.vendor.test/f/${n}`,
      };
      checks.push(check);
      return HttpResponse.json({ ...linkAnswer, url: check.url, urlExpiry: new Date(clock.now() + 3600_000).toISOString() });
    }),
    http.post(`${VENDOR}/idv/v2/idvalidate/result`, async ({ request }) => {
      await record(request);
      await gate('a result');
      const body = (await request.json()) as { checkId?: string; entity?: { entityId?: string } };
      const check = body.checkId === undefined ? checks.at(-1) : checks.find((c) => c.checkId === body.checkId);
      if (!check || body.entity?.entityId !== ENTITY) {
        return HttpResponse.json({ errorCode: 'NOT_FOUND', errorMsg: 'The check was not found.' }, { status: 404 });
      }
      return HttpResponse.json({ checkId: check.checkId, checkStatus: check.status, entity: { entityId: ENTITY } });
    }),
  );
  return checks;
}

/** The phone back on the worker's return page from a check's hosted flow (the vendor appends its check id). */
async function arrive(e: Env, check: Check) {
  const back = new URL(check.successRedirectURL);
  const res = await call(`${back.pathname}${back.search}&checkId=${check.checkId}`, {}, e);
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
const sendAgain = (e: Env, session: string) =>
  call('/api/onboarding-link', { method: 'POST', json: { session, sendSMS: true, phone: person.phone } }, e);
const resultCalls = () => vendorRequests.filter((r) => r.url.endsWith('/result')).map((r) => r.body as { checkId?: string });

describe('every link of a verification is credited with its one code', () => {
  beforeEach(() => vendor());

  it('after two "Send again", the FIRST text’s link with the on-screen code completes', async () => {
    const { e, clock } = clockedEnv();
    const checks = checksVendor(clock);
    const first = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true } }, e)).json;
    let latest = first;
    for (let i = 0; i < 2; i++) {
      const again = await sendAgain(e, latest.session);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.json.claimCode, first.claimCode, 'one code across every text');
      latest = again.json;
    }
    assert.equal(checks.length, 3, 'three texts, three checks at the vendor');

    // The person opens the first text and finishes there; the two newer checks never start.
    checks[0]!.status = 'CHECKED_SUCCESS_CLEAR';
    const phone = await arrive(e, checks[0]!);
    assert.equal(phone.res.status, 200, phone.res.text);
    assert.equal((await result(e, latest.session)).json.checkStatus, 'CHECKING', 'nothing credited before the code');
    const claimed = await enter(e, phone.path, phone.cookie, first.claimCode);
    assert.equal(claimed.status, 200, claimed.text);
    assert.match(claimed.text, /<h1>All done<\/h1>/);
    const done = await result(e, latest.session);
    assert.equal(done.json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.ok(done.json.resultToken, 'a token for the first text’s check');
  });

  it('"Send again" in two tabs at once: the earlier of the two new texts’ links completes too', async () => {
    const { e, clock } = clockedEnv();
    // Every vendor answer waits for the other request to go on until it waits too, so both are under way together.
    const checks = checksVendor(clock, nextTurn);
    const first = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true } }, e)).json;
    const both = await Promise.all([sendAgain(e, first.session), sendAgain(e, first.session)]);
    for (const again of both) assert.equal(again.status, 200, again.text);
    assert.equal(checks.length, 3, 'two new texts, two new checks at the vendor');
    checks[1]!.status = 'CHECKED_SUCCESS_CLEAR'; // not the newest: asked about by its id only if the worker knows it
    const phone = await arrive(e, checks[1]!);
    assert.equal((await enter(e, phone.path, phone.cookie, first.claimCode)).status, 200);
    assert.equal((await result(e, first.session)).json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
  });

  it('any number of "Send again" at once, in any order of the vendor’s answers: every text’s link stays askable', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 2, max: 3 }), async (s, tabs) => {
        const { e, clock, store } = clockedEnv();
        let gated = false; // the first link is made in order; the scheduler orders the vendor's answers to the texts sent again
        const checks = checksVendor(clock, (what) => (gated ? s.schedule(Promise.resolve(), what) : Promise.resolve()));
        const first = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true } }, e)).json;
        gated = true;
        const sends = Promise.all(Array.from({ length: tabs }, () => sendAgain(e, first.session)));
        let done = false;
        void sends.finally(() => (done = true));
        // Each round lets every tab run until it waits on the vendor, then the scheduler answers one of those waiting calls.
        while (!done) {
          await nextTurn();
          if (s.count() > 0) await s.waitNext(1);
        }
        for (const again of await sends) assert.equal(again.status, 200, again.text);
        const v = store.records.get(first.verificationId)!;
        // Asked about: the newest by entity, and each earlier link's check by the id the vendor gave.
        const askable = [...(v.earlierChecks ?? []), checks.at(-1)!.checkId];
        assert.deepEqual(askable.sort(), checks.map((c) => c.checkId).sort());
        assert.equal(v.renewals, tabs);
      }),
      { numRuns: 25 },
    );
  });

  it('the newest text’s link completes too', async () => {
    const { e, clock } = clockedEnv();
    const checks = checksVendor(clock);
    const first = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true } }, e)).json;
    const again = (await sendAgain(e, first.session)).json;
    checks[1]!.status = 'CHECKED_SUCCESS_CLEAR';
    const phone = await arrive(e, checks[1]!);
    assert.equal((await enter(e, phone.path, phone.cookie, first.claimCode)).status, 200);
    assert.equal((await result(e, again.session)).json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
  });

  it('a QR link renewed while a phone was still in the old flow: the old flow completes', async () => {
    const { e, clock } = clockedEnv();
    const checks = checksVendor(clock);
    const first = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, handoff: true } }, e)).json;
    clock.t += 3600_000 + 1000; // the link expired while the phone was still in its flow
    const renewed = await call('/api/onboarding-link', { method: 'POST', json: { session: first.session } }, e);
    assert.equal(renewed.status, 200, renewed.text);
    assert.equal(checks.length, 2);
    checks[0]!.status = 'CHECKED_SUCCESS_CLEAR';
    const phone = await arrive(e, checks[0]!);
    assert.equal((await enter(e, phone.path, phone.cookie, first.claimCode)).status, 200);
    assert.equal((await result(e, renewed.json.session)).json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
  });

  it('asks only about checks the vendor named: a check id the phone brings is never asked about', async () => {
    const { e, clock } = clockedEnv();
    const checks = checksVendor(clock);
    const first = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true } }, e)).json;
    await sendAgain(e, first.session);
    vendorRequests.length = 0;
    const back = new URL(checks[1]!.successRedirectURL);
    await call(`${back.pathname}${back.search}&checkId=chk-someone-elses`, {}, e);
    const asked = resultCalls().map((b) => b.checkId ?? 'by entity');
    assert.deepEqual(asked.sort(), ['by entity', 'chk-1'], 'the newest by entity, the first text’s check by the id the vendor gave');
  });

  it('a next attempt is about its own link: the earlier attempt’s checks are not asked again', async () => {
    const { e, clock, store } = clockedEnv();
    const checks = checksVendor(clock);
    const first = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true } }, e)).json;
    const again = (await sendAgain(e, first.session)).json;
    checks[1]!.status = 'NO_MATCH';
    const phone = await arrive(e, checks[1]!);
    await enter(e, phone.path, phone.cookie, first.claimCode);
    assert.equal((await result(e, again.session)).json.status, 'requires_input');
    const next = await call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true, session: again.session } }, e);
    assert.equal(next.status, 200, next.text);
    assert.equal(store.records.get(first.verificationId)!.earlierChecks, undefined);
    vendorRequests.length = 0;
    clock.t += 60_000;
    await result(e, next.json.session);
    assert.deepEqual(resultCalls(), [{ entity: { entityId: ENTITY }, provider: 'provider-x' }]);
  });

  it('the same next attempt sent twice at once: one new link, the other 409 ATTEMPT_NOT_ALLOWED', async () => {
    const { e, clock, store } = clockedEnv();
    let slow = false;
    // Once slow, every vendor answer waits for the other attempt to go on until it waits too: both under way together.
    const checks = checksVendor(clock, () => (slow ? nextTurn() : Promise.resolve()));
    const first = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true } }, e)).json;
    checks[0]!.status = 'NO_MATCH';
    const phone = await arrive(e, checks[0]!);
    await enter(e, phone.path, phone.cookie, first.claimCode);
    assert.equal((await result(e, first.session)).json.status, 'requires_input');
    slow = true;
    const attempt = () => call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true, session: first.session } }, e);
    const answers = await Promise.all([attempt(), attempt()]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], answers.map((a) => a.text).join('\n'));
    const refused = answers.find((a) => a.status === 409)!.json;
    assert.equal(refused.errorCode, 'ATTEMPT_NOT_ALLOWED');
    assert.deepEqual(
      refused.issues.map((i: { issueLocation: string }) => i.issueLocation),
      ['session'],
    );
    assert.equal(checks.length, 2, 'one new link at the vendor');
    assert.equal(store.records.get(first.verificationId)!.attempts?.length, 1);
  });

  it('a redaction forgets the earlier links’ checks', async () => {
    const { e, clock, store } = clockedEnv();
    checksVendor(clock);
    const first = (await call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true } }, e)).json;
    await sendAgain(e, first.session);
    const v = store.records.get(first.verificationId)!;
    assert.deepEqual(v.earlierChecks, ['chk-1']);
    assert.equal(redacted(v, clock.now()).earlierChecks, undefined);
  });
});
