/**
 * The verification executor's conformance suite: runner-neutral cases that
 * every host of the executor passes — the Durable Object in workerd
 * (test/worker/conformance-workerd.test.ts) and the in-memory host of the
 * node tests (test/worker/conformance.test.ts), as workers-oauth-provider's
 * storage backends share one suite. Each case gets a fresh verification id
 * and the host's `execute`; times are relative to the host's clock (`now`),
 * never a literal date. The cases ask nothing of the vendor: a record's next
 * poll is always later than the case lasts.
 */
import assert from 'node:assert/strict';
import type { Command, ResultOf } from '../../worker/verifications/commands';
import type { StoredVerification, Verification } from '../../worker/verifications/verification';
import { newVerificationId } from '../../worker/verifications/verification';

/** What a host gives a case: its one method, and its clock's time. */
export interface Host {
  execute<C extends Command>(id: string, command: C): Promise<ResultOf<C>>;
  now(): number;
}

export interface ConformanceCase {
  name: string;
  run(host: Host): Promise<void>;
}

const MIN = 60_000;

/** An open verification with a link (its next poll an hour away), or `created` (started by a server, no link). */
export function record(now: number, kind: 'open' | 'created' = 'open'): Verification {
  const base = {
    id: newVerificationId(),
    partnerId: 'conformance',
    partnerOrigin: kind === 'open' ? 'https://shop.example' : '',
    customerRef: 'acct-1',
    workerOrigin: 'http://127.0.0.1',
    livemode: false,
    createdAt: now,
    polls: 1,
    lastPolledAt: now,
    idlePolls: 6, // the alarm's next poll is far off
    webhook: { state: 'none' as const, attempts: 0 },
  };
  return kind === 'open'
    ? {
        ...base,
        entityId: 'e-conformance',
        linkCreatedAt: now,
        linkExpiresAt: now + 60 * MIN,
        deadline: now + 75 * MIN,
        state: { name: 'open' },
      }
    : { ...base, linkExpiresAt: 0, deadline: now + 120 * MIN, state: { name: 'created' } };
}

async function created(host: Host, kind: 'open' | 'created' = 'open'): Promise<Verification> {
  const v = record(host.now(), kind);
  await host.execute(v.id, { type: 'create', verification: v });
  return v;
}

/** Whether `p` has settled once everything already queued has run (a look, not a wait for time). */
async function settledYet(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
  return done;
}

const renewal = (now: number) => ({ urlExpiry: new Date(now + 60 * MIN).toISOString() });

export const cases: ConformanceCase[] = [
  {
    name: 'create, then read: the record as written, with its state',
    async run(host) {
      const v = await created(host);
      const read = await host.execute(v.id, { type: 'read' });
      assert.equal(read?.id, v.id);
      assert.deepEqual(read?.state, { name: 'open' });
      assert.equal(await host.execute(newVerificationId(), { type: 'read' }), undefined, 'an unknown id reads as nothing');
    },
  },
  {
    name: 'a record stored before the explicit state is read with its state derived',
    async run(host) {
      const now = host.now();
      const { state: _state, ...rest } = record(now);
      const old: StoredVerification = { ...rest, status: 'CHECKED_SUCCESS_CLEAR', finalAt: now };
      await host.execute(old.id, { type: 'create', verification: old as unknown as Verification });
      const read = await host.execute(old.id, { type: 'read' });
      assert.deepEqual(read?.state, { name: 'final', at: now, checkStatus: 'CHECKED_SUCCESS_CLEAR' });
      assert.ok(read && !('status' in read) && !('finalAt' in read), 'the old fields are gone once read');
    },
  },
  {
    name: 'start: a created verification gets its first link once; a second start is refused',
    async run(host) {
      const v = await created(host, 'created');
      const link = { entityId: 'e-1', partnerOrigin: 'https://shop.example', urlExpiry: new Date(host.now() + 30 * MIN).toISOString() };
      const first = await host.execute(v.id, { type: 'start', link });
      assert.deepEqual(first?.state, { name: 'open' });
      assert.equal(first?.entityId, 'e-1');
      assert.equal(await host.execute(v.id, { type: 'start', link: { ...link, entityId: 'e-2' } }), undefined);
      assert.equal((await host.execute(v.id, { type: 'read' }))?.entityId, 'e-1', 'the first link stands');
    },
  },
  {
    name: 'cancel: canceled once, with one verification.canceled event owed; a second cancel changes nothing',
    async run(host) {
      const v = await created(host);
      const after = await host.execute(v.id, { type: 'cancel' });
      assert.equal(after?.state.name, 'canceled');
      const again = await host.execute(v.id, { type: 'cancel' });
      assert.deepEqual(again?.state, after?.state);
      const owed = await host.execute(v.id, { type: 'undelivered' });
      assert.deepEqual(
        owed.map((e) => e.type),
        ['verification.canceled'],
      );
      assert.equal(await host.execute(v.id, { type: 'start', link: { entityId: 'e', partnerOrigin: 'x', urlExpiry: '' } }), undefined);
    },
  },
  {
    name: 'redact: what identifies the person is gone, an open one is canceled, the event is verification.redacted',
    async run(host) {
      const v = await created(host);
      const after = await host.execute(v.id, { type: 'redact' });
      assert.equal(after?.state.name, 'canceled');
      assert.equal(after?.customerRef, undefined);
      assert.equal(after?.entityId, undefined);
      assert.ok(after?.redactedAt !== undefined);
      assert.equal(after.lastEvent, 'verification.redacted');
    },
  },
  {
    name: 'expire: an open one ends expired (not_finished); an ended one is not expired again',
    async run(host) {
      const v = await created(host);
      const after = await host.execute(v.id, { type: 'expire' });
      assert.equal(after?.state.name, 'expired');
      assert.equal(after?.state.name === 'expired' && after.state.reason, 'not_finished');
      const c = await created(host);
      await host.execute(c.id, { type: 'cancel' });
      assert.equal((await host.execute(c.id, { type: 'expire' }))?.state.name, 'canceled');
    },
  },
  {
    name: 'redeliver: nothing while open; the end event again once it ended (same webhook-id)',
    async run(host) {
      const v = await created(host);
      assert.equal(await host.execute(v.id, { type: 'redeliver' }), undefined);
      await host.execute(v.id, { type: 'cancel' });
      const [first] = await host.execute(v.id, { type: 'undelivered' });
      const again = await host.execute(v.id, { type: 'redeliver' });
      assert.equal(again?.type, 'verification.canceled');
      assert.equal(again.id, first?.webhookId);
    },
  },
  {
    name: 'handoff: an unknown token opens nothing, a wrong return secret arrives nowhere, a wrong browser key claims nothing',
    async run(host) {
      const v = await created(host);
      assert.equal(await host.execute(v.id, { type: 'handoff.open', token: 'nope', consume: true }), undefined);
      assert.equal(await host.execute(v.id, { type: 'arrive', secret: 'nope', outcome: 'success', hint: {} }), undefined);
      assert.deepEqual(await host.execute(v.id, { type: 'claim', browserKey: 'nope', code: '000000' }), { kind: 'gone' });
    },
  },
  {
    name: 'a renewal: the lease taken, the link stored with its fence, the lease ended in the same write',
    async run(host) {
      const v = await created(host);
      const turn = await host.execute(v.id, { type: 'renewal.begin' });
      assert.ok(turn.fence > 0);
      assert.equal(turn.v?.renewalLease?.fence, turn.fence, 'the lease is on the record');
      const after = await host.execute(v.id, { type: 'renew', renewal: renewal(host.now()), fence: turn.fence });
      assert.equal(after?.renewals, 1);
      assert.equal(after?.renewalLease?.until, 0, 'ended with the write');
      assert.equal(await host.execute(v.id, { type: 'renew', renewal: renewal(host.now()), fence: turn.fence }), undefined, 'once');
    },
  },
  {
    name: 'two renewals at once: the second turn comes after the first ends, and the first fence cannot write after it',
    async run(host) {
      const v = await created(host);
      const a = await host.execute(v.id, { type: 'renewal.begin' });
      const pendingB = host.execute(v.id, { type: 'renewal.begin' });
      assert.equal(await settledYet(pendingB), false, 'the second turn waits while the first holds the lease');
      await host.execute(v.id, { type: 'renew', renewal: renewal(host.now()), fence: a.fence });
      const b = await pendingB;
      assert.equal(b.fence, a.fence + 1);
      assert.equal(b.v?.renewals, 1, 'the second turn sees the first renewal stored');
      assert.equal(await host.execute(v.id, { type: 'renew', renewal: renewal(host.now()), fence: a.fence }), undefined, 'a stale fence');
      const after = await host.execute(v.id, { type: 'renew', renewal: renewal(host.now()), fence: b.fence });
      assert.equal(after?.renewals, 2, 'every renewal counted once');
    },
  },
  {
    name: 'a turn that stores no link ends with renewal.end, and the next turn comes',
    async run(host) {
      const v = await created(host);
      const a = await host.execute(v.id, { type: 'renewal.begin' });
      const pendingB = host.execute(v.id, { type: 'renewal.begin' });
      await host.execute(v.id, { type: 'renewal.end', fence: a.fence + 7 }); // not the lease: nothing ends
      assert.equal(await settledYet(pendingB), false);
      await host.execute(v.id, { type: 'renewal.end', fence: a.fence });
      assert.equal((await pendingB).fence, a.fence + 1);
    },
  },
  {
    name: 'a cancel during a renewal turn wins: the link is not stored',
    async run(host) {
      const v = await created(host);
      const turn = await host.execute(v.id, { type: 'renewal.begin' });
      await host.execute(v.id, { type: 'cancel' });
      assert.equal(await host.execute(v.id, { type: 'renew', renewal: renewal(host.now()), fence: turn.fence }), undefined);
      assert.equal((await host.execute(v.id, { type: 'read' }))?.state.name, 'canceled');
    },
  },
];
