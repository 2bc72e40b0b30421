/**
 * The operator's events in node, on a controlled clock: which requests and
 * verification steps emit which event, with which fields, exactly once;
 * nothing personal (no name, date of birth, phone number or customerRef) in
 * any of them; a queue that fails or hangs never fails or delays an answer.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it, mock } from 'node:test';
import { http, HttpResponse } from 'msw';
import type { Env } from '../../worker/lib/env';
import type { OpsMessage } from '../../worker/ops/events';
import { isOpsMessage } from '../../worker/ops/consumer';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { never, nextTurn, until } from '../support/wait';
import { ENVIRONMENT_PARTNER_ID } from '../../worker/partners/partner';
import { baseEnv, call, linkAnswer, okVendor, person, secrets, startHarness, stopHarness, VENDOR, vendor } from './harness';

const RESULT = `${VENDOR}/idv/v2/idvalidate/result`;
const CUSTOMER_REF = 'acct-opsevents-7781';

/** A queue double that keeps what it was sent. */
function fakeQueue() {
  const sent: OpsMessage[] = [];
  return {
    sent,
    queue: {
      send: async (body: OpsMessage) => void sent.push(body),
      sendBatch: async (batch: { body: OpsMessage }[]) => void sent.push(...batch.map((b) => b.body)),
    } as unknown as NonNullable<Env['EVENTS_QUEUE']>,
  };
}

function stack(queue: Env['EVENTS_QUEUE']) {
  const env: Env = { ...baseEnv, RESULT_POLL_SECONDS: '30', VERIFICATION_GRACE_SECONDS: '60', EVENTS_QUEUE: queue };
  // The routes read the runtime's clock and the store the test's: one clock for both, frozen and moved by the test.
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const store = new MemoryVerifications(env, { now: () => Date.now() });
  useNodeTwins(env, { verifications: store });
  return { env, store, advance: (ms: number) => mock.timers.tick(ms) };
}

/**
 * Once `q` holds the event the test waits for (the last one the step emits, a
 * recorded fact, not a time), and one more turn of the event loop, so a send
 * started by the same step that should not happen (a second count) is there too.
 */
async function settle(q: ReturnType<typeof fakeQueue>, what: string, done: (sent: OpsMessage[]) => boolean): Promise<void> {
  await until(() => done(q.sent), { what, timeoutMs: 10_000, detail: () => JSON.stringify(q.sent.map((e) => e.type)) });
  await nextTurn();
}
const sentA = (type: OpsMessage['type']) => (sent: OpsMessage[]) => sent.some((e) => e.type === type);
const strip = ({ id: _i, at: _a, ...rest }: OpsMessage) => rest;

let status = 'CHECKED_SUCCESS_CLEAR';
before(startHarness);
after(stopHarness);
afterEach(() => mock.timers.reset());
beforeEach(() => {
  status = 'CHECKED_SUCCESS_CLEAR';
  vendor(
    okVendor[0]!,
    okVendor[2]!,
    http.post(RESULT, () => HttpResponse.json({ checkStatus: status, entity: { entityId: linkAnswer.entity.entityId } })),
  );
});

describe('operator events', () => {
  it('a page view, a refusal, a link, a return and a final status: each counted once, for the partner, nothing personal', async () => {
    const q = fakeQueue();
    const s = stack(q.queue);
    const P = ENVIRONMENT_PARTNER_ID;

    const beacon = await call('/api/beacon', { method: 'POST', body: '' }, s.env);
    assert.equal(beacon.status, 204);
    // sendBeacon's text body makes a no-cors request: a partner page reads the answer only if its resource policy allows.
    assert.equal(beacon.headers.get('Cross-Origin-Resource-Policy'), 'cross-origin');
    const refused = await call(
      '/api/onboarding-link',
      { method: 'POST', json: { ...person, name: { givenName: 'Thi Minh', familyName: '' }, dateOfBirth: '1990-02-30' } },
      s.env,
    );
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('Cross-Origin-Resource-Policy'), 'same-origin', 'relaxed on the beacon only');
    const link = await call('/api/onboarding-link', { method: 'POST', json: { ...person, customerRef: CUSTOMER_REF } }, s.env);
    assert.equal(link.status, 200, link.text);
    await settle(q, 'link.created', sentA('link.created'));
    const vendorCall = q.sent.find((e) => e.type === 'vendor.call');
    assert.ok(vendorCall && vendorCall.type === 'vendor.call' && vendorCall.ms >= 0);
    assert.deepEqual(q.sent.map(strip), [
      { type: 'widget.shown', partnerId: P },
      { type: 'link.refused', errorCode: 'VALIDATION_FAILED', fields: ['name.familyName', 'dateOfBirth'], partnerId: P },
      // Our words for the operation (the spec vendor's `onboarding-url` before), and whose vendor.
      { type: 'vendor.call', vendor: 'idv', operation: 'vendor-link', outcome: 'ok', ms: vendorCall.ms, partnerId: P },
      { type: 'link.created', channel: 'redirect', vendor: 'idv', partnerId: P },
    ]);

    q.sent.length = 0;
    s.advance(42_000);
    const back = await call(
      '/api/result',
      { method: 'POST', json: { session: link.json.session, checkId: 'chk-1', returned: 'success' } },
      s.env,
    );
    assert.equal(back.status, 200, back.text);
    assert.equal(back.json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    // The same return read again (a reload) is not a second return.
    await call('/api/result', { method: 'POST', json: { session: link.json.session, returned: 'success' } }, s.env);
    await settle(q, 'verification.final', sentA('verification.final'));
    assert.deepEqual(
      q.sent.map(strip).map((e) => ('ms' in e ? { ...e, ms: 0 } : e)),
      [
        { type: 'flow.returned', outcome: 'success', partnerId: P },
        { type: 'vendor.call', vendor: 'idv', operation: 'result', outcome: 'ok', ms: 0, partnerId: P },
        { type: 'verification.final', checkStatus: 'CHECKED_SUCCESS_CLEAR', secondsSinceLink: 42, vendor: 'idv', partnerId: P },
      ],
    );
    for (const e of q.sent) assert.ok(isOpsMessage(e), `the consumer accepts ${e.type}`);
    const all = JSON.stringify(q.sent);
    for (const s of [...secrets, CUSTOMER_REF, linkAnswer.entity.entityId]) assert.ok(!all.includes(s), `no ${s} in the events`);
  });

  it('an expiry on the controlled clock, vendor faults by outcome, and a texted link’s channel', async () => {
    const q = fakeQueue();
    const s = stack(q.queue);
    status = 'CHECKING';
    const link = await call('/api/onboarding-link', { method: 'POST', json: { ...person, sendSMS: true } }, s.env);
    assert.equal(link.status, 200, link.text);
    await settle(q, 'link.created', sentA('link.created'));
    assert.ok(q.sent.some((e) => e.type === 'link.created' && e.channel === 'sms'));
    q.sent.length = 0;

    vendor(http.post(RESULT, () => new HttpResponse('down', { status: 503 })));
    s.advance(10 * 60_000); // past the next alarm, however the schedule backs off after a failure
    await s.store.runDueAlarms();
    vendor(http.post(RESULT, () => HttpResponse.json({ errorCode: 'X', errorMsg: 'no' }, { status: 422 })));
    s.advance(10 * 60_000); // past the next alarm, however the schedule backs off after a failure
    await s.store.runDueAlarms();
    vendor(
      http.post(RESULT, async () => {
        await never(); // KYC_TIMEOUT_MS is 300
        return HttpResponse.json({ checkStatus: 'CHECKING' });
      }),
    );
    s.advance(10 * 60_000); // past the next alarm, however the schedule backs off after a failure
    await s.store.runDueAlarms();
    vendor(http.post(RESULT, () => HttpResponse.error()));
    s.advance(10 * 60_000); // past the next alarm, however the schedule backs off after a failure
    await s.store.runDueAlarms();
    // Past the link's expiry and the grace period, the vendor answers again (still not finished): expired, not finished.
    vendor(http.post(RESULT, () => HttpResponse.json({ checkStatus: 'CHECKING' })));
    s.advance(2 * 60 * 60 * 1000);
    await s.store.runDueAlarms();
    await settle(
      q,
      'five vendor calls and the expiry',
      (sent) => sent.filter((e) => e.type === 'vendor.call').length >= 5 && sentA('verification.expired')(sent),
    );
    assert.deepEqual(
      q.sent.filter((e) => e.type === 'vendor.call').map((e) => (e.type === 'vendor.call' ? e.outcome : '')),
      ['5xx', '4xx', 'timeout', 'network', 'ok'],
    );
    assert.deepEqual(q.sent.filter((e) => e.type.startsWith('verification.')).map(strip), [
      { type: 'verification.expired', reason: 'not_finished', partnerId: ENVIRONMENT_PARTNER_ID },
    ]);
  });

  it('a cancel by the partner’s server is counted once', async () => {
    const q = fakeQueue();
    const s = stack(q.queue);
    const link = await call('/api/onboarding-link', { method: 'POST', json: person }, s.env);
    assert.equal(link.status, 200, link.text);
    await s.store.logic(link.json.verificationId).execute({ type: 'cancel' });
    await s.store.logic(link.json.verificationId).execute({ type: 'cancel' }); // already canceled: nothing more
    await settle(q, 'verification.canceled', sentA('verification.canceled'));
    assert.deepEqual(q.sent.filter((e) => e.type.startsWith('verification.')).map(strip), [
      { type: 'verification.canceled', partnerId: ENVIRONMENT_PARTNER_ID },
    ]);
  });

  it('a queue that throws, rejects or never answers changes no answer', async () => {
    const queues: Env['EVENTS_QUEUE'][] = [
      {
        send: () => {
          throw new Error('boom');
        },
      } as unknown as Env['EVENTS_QUEUE'],
      { send: () => Promise.reject(new Error('full')) } as unknown as Env['EVENTS_QUEUE'],
      { send: () => new Promise(() => {}) } as unknown as Env['EVENTS_QUEUE'],
    ];
    for (const queue of queues) {
      const s = stack(queue);
      const beacon = await call('/api/beacon', { method: 'POST', body: '' }, s.env);
      assert.equal(beacon.status, 204);
      const link = await call('/api/onboarding-link', { method: 'POST', json: person }, s.env);
      assert.equal(link.status, 200, link.text);
    }
  });
});

describe('sending after the answer', () => {
  it("one queue call carries every event a request's context emits before the send runs; without a context each goes at once", async () => {
    const { emit, message } = await import('../../worker/ops/events');
    const calls: number[] = [];
    const queue = {
      send: async () => void calls.push(1),
      sendBatch: async (batch: unknown[]) => void calls.push(batch.length),
    } as unknown as NonNullable<Env['EVENTS_QUEUE']>;
    const kept: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void kept.push(p) };
    const first = emit({ EVENTS_QUEUE: queue }, ctx, [message('alpha', { type: 'widget.shown' })]);
    const second = emit({ EVENTS_QUEUE: queue }, ctx, [message('alpha', { type: 'link.created', channel: 'redirect' })]);
    assert.equal(calls.length, 0, 'nothing is sent before the answer');
    await Promise.all([first, second, ...kept]);
    assert.deepEqual(calls, [2], 'one batch of both events');
    await emit({ EVENTS_QUEUE: queue }, undefined, [message('alpha', { type: 'widget.shown' })]);
    assert.deepEqual(calls, [2, 1]);
  });
});
