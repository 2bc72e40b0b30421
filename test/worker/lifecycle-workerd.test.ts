/**
 * A verification's lifecycle in workerd (Miniflare, the real Durable Object):
 * a vendor outage across the deadline, then its recovery, ends `final` with
 * the vendor's status; a result without an entity is never credited. No
 * waiting for time to pass: each record is made through the Durable Object's
 * own `create` with its deadline already past (or not), so the runtime runs
 * its alarm at once; the person's return is a session signed with the
 * worker's secret.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSession } from '../../worker/browser-api/session';
import { newVerificationId, type Verification } from '../../worker/verifications/verification';
import { CHECKING } from '../../worker/vendors/idv/mapping';
import { realNow } from '../support/dates';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { startMiniflareWorker, verificationObject, type MiniflareWorker } from '../support/miniflare-worker';
import { flat } from '../support/state-view';
import { until } from '../support/wait';

const ORIGIN = 'https://shop.example';
const SECRET = 'lifecycle-session-secret-7c1d9e2a4b6f';
const MIN = 60_000;
/** The entity whose result the vendor gives without naming any entity. */
const NAMELESS = 'e-nameless';

let vendor: FakeVendor;
let worker: MiniflareWorker;
let vendorDown = true;

before(async () => {
  vendor = await startFakeVendor((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.path.startsWith('/idv/v2/idvalidate/result')) {
      const entityId = (JSON.parse(req.body) as { entity?: { entityId?: string } }).entity?.entityId;
      if (vendorDown) {
        res.statusCode = 503;
        res.end(JSON.stringify({ errorCode: 'UNAVAILABLE', errorMsg: 'down', issues: [], requestId: 'x' }));
      } else if (entityId === NAMELESS) {
        res.end(JSON.stringify({ checkStatus: 'CHECKED_SUCCESS_CLEAR' }));
      } else {
        res.end(JSON.stringify({ checkStatus: 'CHECKED_SUCCESS_CLEAR', entity: { entityId } }));
      }
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
      SESSION_SECRET: SECRET,
      ALLOWED_ORIGINS: ORIGIN,
    },
  });
});
after(async () => {
  await worker?.dispose();
  await vendor?.close();
});

/** The verification's own Durable Object, as the worker reaches it. */
const objectOf = (id: string) => verificationObject(worker, id);

/** An open verification with a link, times relative to now. */
function openVerification(entityId: string, deadlineIn: number): Verification {
  const now = realNow();
  return {
    id: newVerificationId(),
    partnerId: 'environment',
    partnerOrigin: ORIGIN,
    entityId,
    workerOrigin: worker.url,
    livemode: true,
    createdAt: now - 90 * MIN,
    linkCreatedAt: now - 90 * MIN,
    linkExpiresAt: now + deadlineIn - 15 * MIN,
    deadline: now + deadlineIn,
    state: { name: 'open' },
    polls: 3,
    lastPolledAt: now - 20 * MIN,
    failedPolls: 2,
    webhook: { state: 'none', attempts: 0 },
  };
}

/** The record once `done` holds: the alarm the runtime runs at once has run (a bounded look, not a wait for time). */
async function settled(object: Awaited<ReturnType<typeof objectOf>>, done: (v: Verification) => boolean): Promise<Verification> {
  // Bounded by 30 s of real time, not a count of looks: a busy machine runs the alarm late, never wrongly.
  return until(async () => ((v) => done(v) && v)((await object.execute({ type: 'read' }))!), {
    what: 'the alarm to run',
    timeoutMs: 30_000,
  });
}

const sessionFor = (v: Verification) =>
  createSession(SECRET, { entityId: v.entityId!, verificationId: v.id, origin: ORIGIN, partnerId: v.partnerId });

const result = (json: unknown) =>
  fetch(`${worker.url}/api/result`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: ORIGIN },
    body: JSON.stringify(json),
  });

describe('the lifecycle in workerd', () => {
  it('a vendor outage across the deadline, then its recovery, ends final with the vendor’s status', async () => {
    vendorDown = true;
    const v = openVerification('e-outage', -5 * MIN); // the deadline passed while the vendor was down
    const object = await objectOf(v.id);
    await object.execute({ type: 'create', verification: v }); // its deadline has passed: the runtime runs its alarm at once
    // A poll is counted as it starts: wait for its failure to be recorded too (the call is over).
    const waiting = await settled(object, (x) => (x.lastPolledAt! >= x.deadline && x.failedPolls! > 2) || flat(x).expiredAt !== undefined);
    assert.equal(flat(waiting).expiredAt, undefined, 'not expired while the vendor could not answer');
    assert.ok(waiting.lastPolledAt! >= waiting.deadline, 'asked once more at the deadline');

    vendorDown = false;
    const res = await result({ session: await sessionFor(v), returned: 'success' });
    const body = (await res.json()) as { checkStatus: string; resultToken?: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.ok(body.resultToken, 'final, with its token');
    const ended = (await object.execute({ type: 'read' }))!;
    assert.equal(flat(ended).status, 'CHECKED_SUCCESS_CLEAR');
    assert.equal(flat(ended).expiredAt, undefined);
  });

  it('a result without an entity is not credited: VENDOR_MISMATCH, vendor_mismatch at error level, no token', async () => {
    vendorDown = false;
    const v = openVerification(NAMELESS, 60 * MIN);
    const object = await objectOf(v.id);
    await object.execute({ type: 'create', verification: v });
    const res = await result({ session: await sessionFor(v), checkId: 'someone-elses-check' });
    const body = (await res.json()) as { errorCode?: string; resultToken?: string };
    assert.equal(res.status, 502, JSON.stringify(body));
    assert.equal(body.errorCode, 'VENDOR_MISMATCH');
    assert.equal(body.resultToken, undefined);
    const after = (await object.execute({ type: 'read' }))!;
    assert.equal(flat(after).status, CHECKING);
    assert.equal(flat(after).finalAt, undefined);
    assert.ok(
      worker.logs.some((l) => /"level":"error"/.test(l) && /"event":"vendor_mismatch"/.test(l) && l.includes(v.id)),
      worker.logs.join('\n'),
    );
  });
});
