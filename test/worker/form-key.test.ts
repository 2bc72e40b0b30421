/**
 * The widget's form key (node, msw as the vendor, verifications in memory on a
 * controlled clock): the link request's `formKey` is kept in the verification's
 * record and given back by `/api/result` only to that verification's session,
 * only while it is open or `requires_input`; a next attempt's key replaces the
 * earlier one; it is gone from the record once the verification is final,
 * canceled, withdrawn or redacted. A malformed key is a 400 naming the field.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { http, HttpResponse } from 'msw';
import type { Env } from '../../worker/lib/env';
import { call, clockedEnv, linkAnswer, okVendor, person, record, startHarness, stopHarness, vendor, VENDOR } from './harness';

before(startHarness);
after(stopHarness);
beforeEach(() => vendor(...okVendor));

/** 32 random bytes in base64url, as the widget makes its key. */
const newFormKey = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');

/** The vendor: links as usual, and results from `statuses` in turn (the last one repeats). */
function vendorSaying(statuses: string[]) {
  let i = 0;
  vendor(
    http.post(`${VENDOR}/idv/v2/idvalidate/onboarding-url`, async ({ request }) => {
      await record(request);
      return HttpResponse.json(linkAnswer);
    }),
    http.post(`${VENDOR}/idv/v2/idvalidate/result`, async ({ request }) => {
      await record(request);
      const checkStatus = statuses[Math.min(i++, statuses.length - 1)]!;
      return HttpResponse.json({ checkStatus, checkId: `chk-${i}`, entity: { entityId: linkAnswer.entity.entityId } });
    }),
  );
}

const link = (e: Env, json: unknown) => call('/api/onboarding-link', { method: 'POST', json }, e);
const result = (e: Env, session: string) => call('/api/result', { method: 'POST', json: { session } }, e);

describe('the widget’s form key', () => {
  it('is given back to its session while open and requires_input; a next attempt’s replaces it; final drops it', async () => {
    const { e, store, clock } = clockedEnv();
    vendorSaying(['CHECKING', 'CHECKING', 'NO_MATCH', 'CHECKED_SUCCESS_CLEAR']); // the second CHECKING: the other verification's
    const key = newFormKey();
    const first = await link(e, { ...person, formKey: key });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.formKey, undefined, 'the link answer does not echo it');
    const id = first.json.verificationId as string;
    assert.equal(store.records.get(id)!.formKey, key);

    const open = await result(e, first.json.session);
    assert.equal(open.json.checkStatus, 'CHECKING');
    assert.equal(open.json.formKey, key, 'open: to its session');

    // Another verification's session never gets this one's key.
    const other = await link(e, person);
    const otherAnswer = await result(e, other.json.session);
    assert.equal(otherAnswer.json.formKey, undefined);

    clock.t += 60_000; // past the poll interval: the vendor is asked again
    const waiting = await result(e, first.json.session);
    assert.equal(waiting.json.status, 'requires_input', waiting.text);
    assert.equal(waiting.json.formKey, key, 'requires_input: to its session');

    // The next attempt with the corrected values, encrypted with a new key.
    const key2 = newFormKey();
    const next = await link(e, { ...person, session: first.json.session, formKey: key2 });
    assert.equal(next.status, 200, next.text);
    assert.equal(store.records.get(id)!.formKey, key2);

    clock.t += 60_000;
    const done = await result(e, next.json.session);
    assert.equal(done.json.checkStatus, 'CHECKED_SUCCESS_CLEAR', done.text);
    assert.equal(done.json.formKey, undefined, 'final: no key');
    assert.equal(store.records.get(id)!.formKey, undefined, 'final: gone from the record');
  });

  it('a next attempt without a key drops the earlier attempt’s', async () => {
    const { e, store } = clockedEnv();
    vendorSaying(['NO_MATCH', 'CHECKING']);
    const first = await link(e, { ...person, formKey: newFormKey() });
    await result(e, first.json.session);
    await link(e, { ...person, session: first.json.session });
    assert.equal(store.records.get(first.json.verificationId)!.formKey, undefined);
  });

  for (const [end, act] of [
    ['canceled by the partner’s server', (s: ReturnType<typeof clockedEnv>['store'], id: string) => s.execute(id, { type: 'cancel' })],
    ['redacted', (s: ReturnType<typeof clockedEnv>['store'], id: string) => s.execute(id, { type: 'redact' })],
  ] as const) {
    it(`is gone once the verification is ${end}`, async () => {
      const { e, store } = clockedEnv();
      vendorSaying(['CHECKING']);
      const first = await link(e, { ...person, formKey: newFormKey() });
      await act(store, first.json.verificationId);
      assert.equal(store.records.get(first.json.verificationId)!.formKey, undefined);
      const answer = await result(e, first.json.session);
      assert.ok(answer.status === 409 || answer.status === 401, answer.text); // ended, or (redacted) no entity to own
      assert.equal(answer.json.formKey, undefined);
    });
  }

  it('is gone once the person withdraws the link', async () => {
    const { e, store } = clockedEnv();
    vendorSaying(['CHECKING']);
    const first = await link(e, { ...person, formKey: newFormKey() });
    const withdrawn = await call('/api/withdraw-link', { method: 'POST', json: { session: first.json.session } }, e);
    assert.equal(withdrawn.json.status, 'canceled', withdrawn.text);
    assert.equal(store.records.get(first.json.verificationId)!.formKey, undefined);
  });

  it('a malformed key is a 400 naming formKey', async () => {
    const { e } = clockedEnv();
    for (const formKey of ['short', newFormKey() + 'A', 'x'.repeat(42) + '=', 42]) {
      const answer = await link(e, { ...person, formKey });
      assert.equal(answer.status, 400, answer.text);
      assert.ok(
        (answer.json.issues as { issueLocation: string }[]).some((i) => i.issueLocation === 'formKey'),
        answer.text,
      );
    }
  });
});
