/**
 * Attempts and the link cap, through the routes (node, msw as the vendor,
 * verifications in memory on a controlled clock): an attempt that ends
 * NO_MATCH with another allowed is `requires_input` (its webhook, the
 * `/api/result` answer, no token); a new link for the same entity is the
 * next attempt; the last attempt decides `final`. A vendor `urlExpiry`
 * decades ahead is capped to LINK_MAX_SECONDS.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { http, HttpResponse } from 'msw';
import type { Env } from '../../worker/lib/env';
import {
  call,
  clockedEnv,
  linkAnswer,
  okVendor,
  person,
  record,
  startHarness,
  stopHarness,
  vendor,
  vendorRequests,
  VENDOR,
} from './harness';
import { flat } from '../support/state-view';

before(startHarness);
after(stopHarness);
beforeEach(() => vendor(...okVendor));

const DAY_MS = 86_400_000;

/** The vendor: links as usual (`urlExpiry` as given), and results from `statuses` in turn (the last one repeats). */
function vendorSaying(statuses: string[], urlExpiry = linkAnswer.urlExpiry) {
  let i = 0;
  vendor(
    http.post(`${VENDOR}/idv/v2/idvalidate/onboarding-url`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({ ...linkAnswer, urlExpiry });
    }),
    http.post(`${VENDOR}/idv/v2/idvalidate/result`, async ({ request }) => {
      await record(request);
      const checkStatus = statuses[Math.min(i++, statuses.length - 1)]!;
      return HttpResponse.json({ checkStatus, checkId: `chk-${i}`, entity: { entityId: linkAnswer.entity.entityId } });
    }),
  );
}

const link = (e: Env, json: unknown) => call('/api/onboarding-link', { method: 'POST', json }, e);
const result = (e: Env, session: string) => call('/api/result', { method: 'POST', json: { session, checkId: 'chk-browser' } }, e);

describe('attempts', () => {
  it('NO_MATCH with an attempt left is requires_input; a new link for the same entity is the next attempt; the last decides final', async () => {
    const { e, store } = clockedEnv();
    vendorSaying(['NO_MATCH', 'CHECKED_SUCCESS_CLEAR']);
    const first = (await link(e, person)).json;
    const waiting = await result(e, first.session);
    assert.equal(waiting.status, 200, waiting.text);
    assert.deepEqual(waiting.json, {
      checkStatus: 'CHECKING',
      verificationId: first.verificationId,
      status: 'requires_input',
      lastAttempt: { checkStatus: 'NO_MATCH' },
      vendor: 'idv', // the vendor the verification is with (docs/vendors.md)
    });
    assert.deepEqual(
      store.events.map((ev) => ev.type),
      ['verification.requires_input'],
    );
    const body = JSON.parse(store.events[0]!.body);
    assert.deepEqual(body.data.lastAttempt, { checkStatus: 'NO_MATCH' });

    // Waiting for the person: nobody asks the vendor.
    vendorRequests.length = 0;
    await result(e, first.session);
    assert.equal(vendorRequests.length, 0);

    // The next attempt: a new vendor link for the same entity, and the verification is open again.
    const next = await link(e, { session: first.session });
    assert.equal(next.status, 200, next.text);
    assert.equal(next.json.verificationId, first.verificationId);
    assert.deepEqual((vendorRequests[0]!.body as { entity: unknown }).entity, { entityId: linkAnswer.entity.entityId });
    assert.equal(flat(store.records.get(first.verificationId)!).requiresInputAt, undefined);

    const done = await result(e, next.json.session);
    assert.equal(done.json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.match(done.json.resultToken, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const v = store.records.get(first.verificationId)!;
    assert.deepEqual(
      v.attempts!.map((a) => a.checkStatus),
      ['NO_MATCH', 'CHECKED_SUCCESS_CLEAR'],
    );
    assert.deepEqual(
      store.events.map((ev) => ev.type),
      ['verification.requires_input', 'verification.completed'],
    );
  });

  it('the last attempt ending NO_MATCH is final NO_MATCH, with a token', async () => {
    const { e, store } = clockedEnv();
    vendorSaying(['NO_MATCH']);
    const first = (await link(e, person)).json;
    await result(e, first.session);
    const next = (await link(e, { session: first.session })).json;
    const done = await result(e, next.session);
    assert.equal(done.json.checkStatus, 'NO_MATCH');
    assert.ok(done.json.resultToken);
    assert.equal(store.records.get(first.verificationId)!.attempts!.length, 2);
  });

  it('the deadline while waiting for the next attempt makes it final with the last attempt’s status', async () => {
    const { e, store, clock } = clockedEnv();
    vendorSaying(['UNPROCESSABLE']);
    const first = (await link(e, person)).json;
    await result(e, first.session);
    clock.t = store.records.get(first.verificationId)!.deadline + 1000;
    await store.runDueAlarms();
    const v = store.records.get(first.verificationId)!;
    assert.equal(flat(v).status, 'UNPROCESSABLE');
    assert.notEqual(flat(v).finalAt, undefined);
  });
});

describe('the next attempt with corrected details', () => {
  const corrected = { ...person, name: { givenName: 'Thi Minh', familyName: 'Nguyen' } };

  it('session plus the corrected details: the same entity gets them, the same verification, then final with the second status', async () => {
    const { e, store } = clockedEnv();
    vendorSaying(['NO_MATCH', 'CHECKED_SUCCESS_CLEAR']);
    const first = (await link(e, person)).json;
    assert.equal((await result(e, first.session)).json.status, 'requires_input');
    vendorRequests.length = 0;
    const next = await link(e, { ...corrected, session: first.session });
    assert.equal(next.status, 200, next.text);
    assert.equal(next.json.verificationId, first.verificationId);
    const sent = vendorRequests[0]!.body as { entity: { entityId: string; name: unknown; dateOfBirth: unknown } };
    assert.equal(sent.entity.entityId, linkAnswer.entity.entityId, 'the same vendor entity');
    assert.deepEqual(sent.entity.name, corrected.name, 'the corrected name');
    assert.deepEqual(sent.entity.dateOfBirth, { dateOfBirth: person.dateOfBirth });
    const done = await result(e, next.json.session);
    assert.equal(done.json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.deepEqual(
      store.records.get(first.verificationId)!.attempts!.map((a) => a.checkStatus),
      ['NO_MATCH', 'CHECKED_SUCCESS_CLEAR'],
    );
  });

  it('is refused (409 ATTEMPT_NOT_ALLOWED on session) while the verification is not requires_input, without asking the vendor', async () => {
    const { e } = clockedEnv();
    vendorSaying(['CHECKING']);
    const first = (await link(e, person)).json;
    vendorRequests.length = 0;
    const res = await link(e, { ...corrected, session: first.session });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.json.errorCode, 'ATTEMPT_NOT_ALLOWED');
    assert.equal(res.json.issues[0].issueLocation, 'session');
    assert.equal(vendorRequests.filter((r) => r.url.endsWith('/onboarding-url')).length, 0);
  });

  it('validates the details like a first link: a 400 naming the field', async () => {
    const { e } = clockedEnv();
    vendorSaying(['NO_MATCH']);
    const first = (await link(e, person)).json;
    await result(e, first.session);
    const res = await link(e, { ...corrected, dateOfBirth: 'soon', session: first.session });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.issues[0].issueLocation, 'dateOfBirth');
  });
});

describe('the link cap', () => {
  it('a vendor urlExpiry seventy years ahead is capped to LINK_MAX_SECONDS (default a day)', async () => {
    const { e, store } = clockedEnv();
    const far = new Date(Date.now() + 70 * 365 * DAY_MS).toISOString();
    vendorSaying(['CHECKING'], far);
    const before = Date.now();
    const res = await link(e, person);
    assert.equal(res.status, 200, res.text);
    const v = store.records.get(res.json.verificationId)!;
    assert.ok(v.linkExpiresAt <= Date.now() + DAY_MS, `link expiry ${new Date(v.linkExpiresAt).toISOString()}`);
    assert.ok(v.linkExpiresAt >= before + DAY_MS);
    assert.ok(Date.parse(res.json.urlExpiry) <= Date.now() + DAY_MS, 'the page is told the capped expiry');
  });

  it('LINK_MAX_SECONDS sets the cap', async () => {
    const { e, store } = clockedEnv();
    e.LINK_MAX_SECONDS = '3600';
    vendorSaying(['CHECKING'], new Date(Date.now() + 5 * 3600_000).toISOString());
    const res = await link(e, person);
    const v = store.records.get(res.json.verificationId)!;
    assert.ok(v.linkExpiresAt <= Date.now() + 3600_000);
  });
});
