/**
 * The polling budget in workerd (Miniflare, the real Durable Object and its
 * alarm): the alarm alone asks the vendor, its idle wait doubles, and at the
 * deadline the vendor is asked once more and nothing after. workerd cannot
 * take a faked clock, so nothing waits for the schedule: each record is made
 * through the Durable Object's own `create` at the point of its schedule under
 * test (its last poll as long ago as the wait it is due after, or its
 * deadline already past), so the runtime runs its alarm at once (the
 * object's floor of one second for a poll that is due). The budget over a
 * whole link, against the fixed schedule, is polling.test.ts's, on a clock
 * the test controls.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { newVerificationId, type Verification } from '../../worker/verifications/verification';
import { realNow } from '../support/dates';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { startMiniflareWorker, verificationObject, type MiniflareWorker } from '../support/miniflare-worker';
import { flat } from '../support/state-view';
import { until } from '../support/wait';

const LINK_SECONDS = 40;
const POLL = 5;
const MAX = 20;
const ORIGIN = 'https://shop.example';
const S = 1000;

let vendor: FakeVendor;
let worker: MiniflareWorker;
/** The entity of each result call that reached the fake vendor. */
let resultCalls: string[] = [];

before(async () => {
  vendor = await startFakeVendor((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.path.startsWith('/idv/v2/idvalidate/result')) {
      const entityId = (JSON.parse(req.body) as { entity?: { entityId?: string } }).entity?.entityId ?? '';
      resultCalls.push(entityId);
      res.end(JSON.stringify({ checkStatus: 'CHECKING', entity: { entityId } }));
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ errorCode: 'NOT_FOUND', errorMsg: 'no', issues: [], requestId: 'x' }));
    }
  });
  worker = await startMiniflareWorker({
    vars: {
      KYC_BASE_URL: vendor.url,
      KYC_API_KEY: 'test-key',
      KYC_CUSTOMER_ID: 'test-customer',
      SESSION_SECRET: 'polling-session-secret-5151-xxxx',
      ALLOWED_ORIGINS: ORIGIN,
      RESULT_POLL_SECONDS: String(POLL),
      RESULT_POLL_MAX_SECONDS: String(MAX),
      VERIFICATION_GRACE_SECONDS: '0',
    },
  });
});
after(async () => {
  await worker?.dispose();
  await vendor?.close();
});
beforeEach(() => {
  resultCalls = [];
});

/** The verification's own Durable Object, as the worker reaches it. */
const objectOf = (id: string) => verificationObject(worker, id);

/** An abandoned verification (nobody asks /api/result) whose 40 s link started `age` ms ago, after `idlePolls` alarm polls. */
function abandoned(entityId: string, age: number, idlePolls: number, lastPolledAgo: number): Verification {
  const now = realNow();
  const start = now - age;
  return {
    id: newVerificationId(),
    partnerId: 'environment',
    partnerOrigin: ORIGIN,
    entityId,
    workerOrigin: worker.url,
    livemode: true,
    createdAt: start,
    linkCreatedAt: start,
    linkExpiresAt: start + LINK_SECONDS * S,
    deadline: start + LINK_SECONDS * S,
    state: { name: 'open' },
    polls: idlePolls,
    idlePolls,
    ...(idlePolls > 0 ? { lastPolledAt: now - lastPolledAgo } : {}),
    webhook: { state: 'none', attempts: 0 },
  };
}

/** The record once `done` holds: the alarm the runtime runs has run (a bounded look, not a wait for the schedule). */
async function settled(object: Awaited<ReturnType<typeof objectOf>>, done: (v: Verification) => boolean): Promise<Verification> {
  // Bounded by 30 s of real time, not a count of looks: a busy machine runs the alarm late, never wrongly.
  return until(async () => ((v) => done(v) && v)((await object.execute({ type: 'read' }))!), {
    what: 'the alarm to run',
    timeoutMs: 30_000,
  });
}

describe('polling budget in workerd (short link)', () => {
  for (const [idlePolls, wait] of [
    [1, 2 * POLL],
    [2, MAX],
  ] as const) {
    it(`after ${idlePolls} idle poll(s) the alarm alone asks once the doubled wait (${wait} s) has passed`, async () => {
      const v = abandoned(`e-idle-${idlePolls}`, 15 * S, idlePolls, wait * S);
      const object = await objectOf(v.id);
      await object.execute({ type: 'create', verification: v });
      // A poll is counted as it starts (before its call), so wait for the vendor's answer to be recorded, not the count.
      const polled = await settled(object, (x) => x.vendorAnsweredAt !== undefined || (x.failedPolls ?? 0) > 0);
      assert.equal(polled.failedPolls ?? 0, 0, 'the vendor answered');
      assert.equal(polled.polls, idlePolls + 1, 'one poll, counted');
      assert.deepEqual(resultCalls, [v.entityId], 'one vendor call, from the alarm');
      assert.equal(polled.idlePolls, idlePolls + 1, 'counted as an idle poll: the next wait doubles');
      assert.equal(flat(polled).expiredAt, undefined);
    });
  }

  it('an abandoned verification is asked once more at its deadline, then ends, with no call after', async () => {
    const v = abandoned('e-deadline', (LINK_SECONDS + 1) * S, 3, 16 * S);
    const object = await objectOf(v.id);
    await object.execute({ type: 'create', verification: v }); // its deadline has passed: the runtime runs its alarm at once
    const ended = await settled(object, (x) => flat(x).expiredAt !== undefined);
    assert.deepEqual(resultCalls, ['e-deadline'], 'asked once at the deadline');
    assert.ok(ended.lastPolledAt! >= ended.deadline, 'the call came after the deadline');
    // Ended: its alarm now waits for the retention period, so no call follows.
    const again = await object.execute({ type: 'read' });
    assert.equal(again!.polls, ended.polls);
    assert.deepEqual(resultCalls, ['e-deadline']);
  });
});
