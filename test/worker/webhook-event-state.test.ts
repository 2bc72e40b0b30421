/**
 * What a webhook event carries and how it is written, through the worker's
 * own VerificationLogic and the write the Durable Object makes of a state
 * change (worker/verifications/record-write.ts) over a storage twin that
 * records each `put` and can refuse one, a controlled clock and a vendor
 * whose answers the test lists.
 *
 * Every event's `data` is the verification's whole public state at the
 * event (status, check status, attempts, redaction, the times `GET /v1`
 * shows), kept byte for byte for every later attempt; and a state change is
 * written with the event it causes in ONE storage put.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Verification } from '../../worker/verifications/verification';
import { CHECKING } from '../../worker/vendors/idv/mapping';
import { VerificationLogic } from '../../worker/verifications/verification-logic';
import { writeChange, type KeptOutbox } from '../../worker/verifications/record-write';
import type { OutboxEntry } from '../../worker/verifications/webhook-outbox';
import { realNow } from '../support/dates';
import { renewWithTurn } from '../support/renew-with-turn';

const MIN = 60_000;
const ENTITY = 'entity-own';

/** Durable Object storage as far as a change needs it: the committed keys, every put, and a way to refuse the next one. */
function storageTwin() {
  const committed = new Map<string, unknown>();
  const puts: string[][] = [];
  let refuseNext = false;
  return {
    committed,
    puts,
    refuseNextPut: () => void (refuseNext = true),
    async put(entries: Record<string, unknown>) {
      if (refuseNext) {
        refuseNext = false;
        throw new Error('storage write failed');
      }
      puts.push(Object.keys(entries).sort());
      for (const [k, val] of Object.entries(entries)) committed.set(k, structuredClone(val));
    },
  };
}

function openRecord(now: number): Verification {
  return {
    id: 'vrf_01JDSTATE00000000000000000',
    partnerId: 'alpha',
    partnerOrigin: 'https://alpha.example',
    customerRef: 'acct-secret-ref',
    customerRefSource: 'server',
    entityId: ENTITY,
    workerOrigin: 'https://kyc.example',
    livemode: false,
    createdAt: now,
    linkCreatedAt: now,
    linkExpiresAt: now + 60 * MIN,
    deadline: now + 75 * MIN,
    state: { name: 'open' },
    polls: 0,
    webhook: { state: 'none', attempts: 0 },
    maxAttempts: 2,
  };
}

function harness(replies: string[]) {
  const storage = storageTwin();
  const kept: KeptOutbox = { outbox: [] };
  const state = { now: realNow() };
  const record = openRecord(state.now);
  storage.committed.set('v', structuredClone(record));
  const logic = new VerificationLogic({
    load: async () => structuredClone(storage.committed.get('v') as Verification | undefined),
    save: async (v, events) => {
      await writeChange(storage, kept, v, events, state.now);
    },
    remove: async () => {
      storage.committed.clear();
    },
    setAlarm: async () => undefined,
    now: () => state.now,
    schedule: { pollMs: 30_000, maxMs: 900_000 },
    askVendor: async () => ({ checkStatus: replies.shift() ?? CHECKING, entityId: ENTITY }),
  });
  const outbox = () => (storage.committed.get('outbox') as OutboxEntry[] | undefined) ?? [];
  const data = (e: OutboxEntry) => (JSON.parse(e.event.body) as { data: Record<string, unknown> }).data;
  return { storage, kept, state, logic, outbox, data };
}

const iso = (t: number) => new Date(t).toISOString();

describe('a webhook event carries the whole public state at the event', () => {
  it('requires_input, then completed, then redacted: each body says the status, attempts, redaction and times as they were', async () => {
    const { state, logic, outbox, data } = harness(['NO_MATCH', 'CHECKED_SUCCESS_CLEAR']);
    const t0 = state.now;
    state.now += MIN;
    await logic.execute({ type: 'observe', arrived: true });
    const [first] = outbox();
    assert.equal(first!.event.type, 'verification.requires_input');
    assert.deepEqual(data(first!), {
      verificationId: 'vrf_01JDSTATE00000000000000000',
      entityId: ENTITY,
      status: 'requires_input',
      checkStatus: CHECKING,
      attempts: [{ checkStatus: 'NO_MATCH', endedAt: iso(t0 + MIN) }],
      createdAt: iso(t0),
      linkCreatedAt: iso(t0),
      expiresAt: iso(t0 + 75 * MIN),
      lastAttempt: { checkStatus: 'NO_MATCH' },
      customerRef: 'acct-secret-ref',
      customerRefSource: 'server',
      partnerOrigin: 'https://alpha.example',
      redacted: false,
      livemode: false,
      sequence: 1,
    });
    const firstBody = first!.event.body;

    // The next attempt, then a final status: a new event; the first one's body is what it was.
    state.now += MIN;
    assert.ok(await renewWithTurn(logic, { urlExpiry: iso(state.now + 60 * MIN) }));
    state.now += MIN;
    await logic.execute({ type: 'observe', arrived: true });
    const completed = outbox()[1]!;
    assert.equal(completed.event.type, 'verification.completed');
    const d = data(completed);
    assert.equal(d.status, 'final');
    assert.equal(d.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.equal(d.finalAt, iso(state.now));
    assert.deepEqual(
      (d.attempts as { checkStatus: string }[]).map((a) => a.checkStatus),
      ['NO_MATCH', 'CHECKED_SUCCESS_CLEAR'],
    );
    assert.equal(d.expiresAt, iso(t0 + 2 * MIN + 75 * MIN), "the renewal's deadline");
    assert.equal(d.sequence, 2);
    assert.equal(outbox()[0]!.event.body, firstBody, 'an earlier event is sent byte for byte as it was');

    // A redelivery later sends the completion as it was, not the state now.
    const completedBody = completed.event.body;
    state.now += 10 * MIN;
    await logic.execute({ type: 'redeliver' });
    assert.equal(outbox()[1]!.event.body, completedBody);
    assert.equal(outbox().length, 2);

    state.now += MIN;
    await logic.execute({ type: 'redact' });
    const [, done, gone] = outbox();
    assert.equal(gone!.event.type, 'verification.redacted');
    const r = data(gone!);
    assert.equal(r.status, 'final');
    assert.equal(r.checkStatus, 'CHECKED_SUCCESS_CLEAR', 'a redaction keeps the statuses');
    assert.equal(r.redacted, true);
    assert.equal(r.redactedAt, iso(state.now));
    assert.equal(r.sequence, 3);
    // Kept bodies forget the reference and the entity; the rest of the state at their event stays.
    for (const e of outbox()) assert.doesNotMatch(e.event.body, /acct-secret-ref|entity-own/);
    assert.equal(data(done!).redacted, false);
    assert.equal(data(done!).status, 'final');
  });

  it('an expiry and a cancel say their status and times', async () => {
    const { state, logic, outbox, data } = harness([]);
    const t0 = state.now;
    state.now += 5 * MIN;
    await logic.execute({ type: 'cancel' });
    const d = data(outbox()[0]!);
    assert.equal(d.status, 'canceled');
    assert.equal(d.canceledAt, iso(t0 + 5 * MIN));
    assert.equal(d.checkStatus, CHECKING);
    assert.equal(d.attempts, undefined);

    const other = harness([]);
    other.state.now += MIN;
    await other.logic.execute({ type: 'expire' });
    const e = other.data(other.outbox()[0]!);
    assert.equal(e.status, 'expired');
    assert.equal(e.reason, 'not_finished');
  });
});

describe('a state change and its event are written together', () => {
  it('every change that causes an event is ONE put of the record and the outbox', async () => {
    const { storage, state, logic } = harness(['NO_MATCH', 'CHECKED_SUCCESS_CLEAR']);
    state.now += MIN;
    await logic.execute({ type: 'observe', arrived: true }); // requires_input
    await renewWithTurn(logic, { urlExpiry: iso(state.now + 60 * MIN) });
    state.now += MIN;
    await logic.execute({ type: 'observe', arrived: true }); // completed
    await logic.execute({ type: 'redact' }); // redacted (and every kept body rewritten)
    const withOutbox = storage.puts.filter((keys) => keys.includes('outbox'));
    assert.equal(withOutbox.length, 3, `puts: ${JSON.stringify(storage.puts)}`);
    for (const keys of withOutbox) assert.deepEqual(keys, ['outbox', 'v'], 'the outbox never written apart from its record');
  });

  it('a refused write keeps neither the state change nor its event', async () => {
    const { storage, state, logic } = harness([]);
    const before = structuredClone(storage.committed.get('v'));
    storage.refuseNextPut();
    state.now += MIN;
    await assert.rejects(logic.execute({ type: 'cancel' }));
    assert.deepEqual(storage.committed.get('v'), before, 'the record is as it was');
    assert.equal(storage.committed.get('outbox'), undefined, 'no event for a change that never happened');
  });
});
