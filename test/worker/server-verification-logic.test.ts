/**
 * A verification the partner's server started, in the verification logic
 * with a controlled clock and a counting vendor: no vendor call while it has
 * no link, its first link starts polling, cancel stops polling (and sends
 * `verification.canceled`), redact forgets customerRef and entityId and
 * cancels an open one, an unused one expires at its own expiry.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newVerificationId, type Verification, type WebhookEvent } from '../../worker/verifications/verification';
import { CHECKING } from '../../worker/vendors/idv/mapping';
import { lifecycle } from '../../worker/verifications/lifecycle';
import { VerificationLogic } from '../../worker/verifications/verification-logic';
import { realNow } from '../support/dates';

const MIN = 60_000;

function harness(start = realNow()) {
  const state: { v?: Verification; alarm?: number; now: number; asked: number; events: WebhookEvent[]; released: string[] } = {
    now: start,
    asked: 0,
    events: [],
    released: [],
  };
  const logic = new VerificationLogic({
    load: async () => state.v,
    save: async (v, events) => {
      state.v = v;
      state.events.push(...events);
    },
    remove: async () => void (state.v = undefined),
    setAlarm: async (at) => void (state.alarm = at),
    now: () => state.now,
    schedule: { pollMs: 5_000, maxMs: 60_000 },
    askVendor: async () => {
      state.asked++;
      return { checkStatus: CHECKING, entityId: 'entity-1' };
    },
    release: async (v) => void state.released.push(v.id),
  });
  /** Runs the alarms due up to `until`, as the Durable Object would. */
  const runUntil = async (until: number) => {
    while (state.alarm !== undefined && state.alarm <= until && state.v) {
      state.now = Math.max(state.now, state.alarm);
      state.alarm = undefined;
      await logic.alarm();
    }
    state.now = until;
  };
  return { state, logic, runUntil };
}

const created = (now: number, expiresIn = 60 * MIN): Verification => ({
  id: newVerificationId(),
  livemode: false,
  partnerId: 'alpha',
  partnerOrigin: '',
  customerRef: 'acct-1',
  customerRefSource: 'server',
  workerOrigin: 'https://kyc.example',
  createdAt: now,
  linkExpiresAt: 0,
  deadline: now + expiresIn,
  state: { name: 'created' },
  polls: 0,
  webhook: { state: 'none', attempts: 0 },
  server: {},
});

const link = (now: number) => ({
  entityId: 'entity-1',
  partnerOrigin: 'https://alpha.example',
  urlExpiry: new Date(now + 30 * MIN).toISOString(),
});

describe('a server-started verification', () => {
  it('asks the vendor nothing until its first link; then polls; cancel stops the polling and sends verification.canceled', async () => {
    const { state, logic, runUntil } = harness();
    await logic.execute({ type: 'create', verification: created(state.now) });
    assert.equal(lifecycle(state.v!), 'created');
    await runUntil(state.now + 10 * MIN);
    assert.equal(state.asked, 0, 'no link, no vendor call');
    assert.equal(lifecycle(state.v!), 'created');

    const linked = await logic.execute({ type: 'start', link: link(state.now) });
    assert.equal(lifecycle(linked!), 'open');
    assert.equal(await logic.execute({ type: 'start', link: link(state.now) }), undefined, 'a second first link is refused');
    await runUntil(state.now + MIN);
    const polled = state.asked;
    assert.ok(polled > 0, 'polled once linked');

    assert.deepEqual(state.released, [], 'an open one keeps its open-verification holds');
    const canceled = await logic.execute({ type: 'cancel' });
    assert.equal(lifecycle(canceled!), 'canceled');
    assert.deepEqual(state.released, [canceled!.id], 'canceling gives its holds back at once');
    assert.deepEqual(
      state.events.map((e) => e.type),
      ['verification.canceled'],
    );
    assert.equal(JSON.parse(state.events[0]!.body).data.customerRef, 'acct-1');
    await runUntil(state.now + 30 * MIN);
    assert.equal(state.asked, polled, 'no vendor call after the cancel');
    assert.equal(
      (await logic.execute({ type: 'observe', hint: { params: { checkId: 'chk-1' } } }))?.returnParams,
      undefined,
      'a return after the cancel is not recorded',
    );
    assert.equal(state.asked, polled);
  });

  it('redact forgets customerRef and entityId for good, cancelling an open one first (its event without them)', async () => {
    const { state, logic } = harness();
    await logic.execute({ type: 'create', verification: created(state.now) });
    await logic.execute({ type: 'start', link: link(state.now) });
    const redacted = await logic.execute({ type: 'redact' });
    assert.equal(redacted!.customerRef, undefined);
    assert.equal(redacted!.entityId, undefined);
    assert.ok(redacted!.redactedAt);
    assert.equal(lifecycle(redacted!), 'canceled');
    assert.deepEqual(
      state.events.map((e) => e.type),
      ['verification.canceled', 'verification.redacted'],
    );
    const data = JSON.parse(state.events[0]!.body).data;
    assert.equal(data.customerRef, undefined);
    assert.equal(data.entityId, undefined);
    assert.doesNotMatch(JSON.stringify(state.v), /acct-1|entity-1/);
    const again = await logic.execute({ type: 'redeliver' });
    assert.equal(again!.type, 'verification.redacted', 'the last event: the redaction');
    assert.equal(again!.id, state.events[1]!.id, 'the same webhook-id');
    assert.notEqual(state.events[0]!.id, state.events[1]!.id, 'the redaction has its own webhook-id');
  });

  it('unused, it expires at its own expiry (not_finished), with no vendor call', async () => {
    const { state, logic, runUntil } = harness();
    const v = created(state.now, 10 * MIN);
    await logic.execute({ type: 'create', verification: v });
    await runUntil(v.deadline + 1000);
    assert.equal(lifecycle(state.v!), 'expired');
    assert.equal(state.asked, 0);
    assert.deepEqual(
      state.events.map((e) => [e.type, JSON.parse(e.body).data.reason]),
      [['verification.expired', 'not_finished']],
    );
  });
});
