/**
 * Attempts belong to their own check (DESIGN "Attempts belong to their own
 * check"; docs/decisions.md): a vendor that still reports the previous
 * attempt's check as the entity's newest (its answer naming no check id)
 * never ends the next attempt. Run through the worker's own VerificationLogic
 * (the code the Durable Object runs) over a copying store, on a clock the
 * test moves; then fast-check's scheduler orders the polls, the next
 * attempt's link and the person's start.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type Verification } from '../../worker/verifications/verification';
import { CHECKING } from '../../worker/vendors/idv/mapping';
import { VerificationLogic } from '../../worker/verifications/verification-logic';
import { lifecycle, ownAttemptAnswer } from '../../worker/verifications/lifecycle';
import type { VendorAnswer } from '../../worker/verifications/lifecycle';
import { realNow } from '../support/dates';
import { renewWithTurn } from '../support/renew-with-turn';

const MIN = 60_000;
const ENTITY = 'entity-own';

/** A verification waiting for its second attempt: attempt 1 ended NO_MATCH (the vendor named no check). */
function waitingRecord(now: number): Verification {
  return {
    id: 'vrf_01JDATTEMPT0000000000000000',
    partnerId: 'alpha',
    partnerOrigin: 'https://alpha.example',
    customerRef: 'acct-1',
    customerRefSource: 'server',
    entityId: ENTITY,
    workerOrigin: 'https://kyc.example',
    livemode: false,
    createdAt: now - 10 * MIN,
    linkCreatedAt: now - 10 * MIN,
    linkExpiresAt: now + 50 * MIN,
    deadline: now + 65 * MIN,
    state: { name: 'requires_input', since: now - MIN },
    polls: 3,
    lastPolledAt: now - MIN,
    webhook: { state: 'none', attempts: 0 },
    maxAttempts: 2,
    attempts: [{ checkStatus: 'NO_MATCH', endedAt: now - MIN }],
  };
}

function harness(record: Verification, vendor: (v: Verification) => Promise<VendorAnswer>) {
  const state = { v: structuredClone(record), now: record.createdAt + 10 * MIN, saved: [] as Verification[] };
  const logic = new VerificationLogic({
    load: async () => structuredClone(state.v),
    save: async (v) => {
      state.v = structuredClone(v);
      state.saved.push(structuredClone(v));
    },
    remove: async () => undefined,
    setAlarm: async () => undefined,
    now: () => state.now,
    schedule: { pollMs: 30_000, maxMs: 900_000 },
    askVendor: vendor,
    release: async () => undefined,
  });
  return { state, logic };
}

const nextLink = (now: number) => ({ urlExpiry: new Date(now + 60 * MIN).toISOString() });

describe('a next attempt is ended only by its own check', () => {
  it('the stale-newest-check vendor: attempt 2 stays open until the vendor answers about it', async () => {
    let person = 'not started' as 'not started' | 'checking' | 'done';
    const { state, logic } = harness(waitingRecord(realNow()), async () =>
      // Until the person begins attempt 2, the vendor's newest check for the entity is still attempt 1's.
      person === 'not started'
        ? { checkStatus: 'NO_MATCH', entityId: ENTITY }
        : person === 'checking'
          ? { checkStatus: CHECKING, entityId: ENTITY }
          : { checkStatus: 'NO_MATCH', entityId: ENTITY },
    );
    assert.ok(await renewWithTurn(logic, nextLink(state.now)), 'the next attempt');
    for (let i = 0; i < 3; i++) {
      state.now += MIN;
      await logic.execute({ type: 'observe', hint: { returned: 'success' }, arrived: true });
    }
    assert.equal(lifecycle(state.v), 'open', 'attempt 1 still reported as newest: attempt 2 not ended');
    assert.equal(state.v.attempts!.length, 1);
    person = 'checking';
    state.now += MIN;
    await logic.execute({ type: 'observe', arrived: true });
    assert.equal(lifecycle(state.v), 'open');
    person = 'done';
    state.now += MIN;
    await logic.execute({ type: 'observe', arrived: true });
    assert.equal(lifecycle(state.v), 'final', 'its own answer ends it');
    assert.deepEqual(
      state.v.attempts!.map((a) => a.checkStatus),
      ['NO_MATCH', 'NO_MATCH'],
    );
  });

  it('an answer naming a new check, or a status the last attempt did not end with, is the attempt’s own', () => {
    const v: Verification = { ...waitingRecord(realNow()), state: { name: 'open' } };
    const previous = { ...v, attempts: [{ checkStatus: 'NO_MATCH', endedAt: 1, check: 'chk-1' }] };
    assert.equal(ownAttemptAnswer(v, { checkStatus: 'NO_MATCH' }), false);
    assert.equal(ownAttemptAnswer(v, { checkStatus: 'CHECKED_SUCCESS_CLEAR' }), true);
    assert.equal(ownAttemptAnswer({ ...v, attemptCheckSeen: true }, { checkStatus: 'NO_MATCH' }), true);
    assert.equal(ownAttemptAnswer(previous, { checkStatus: 'NO_MATCH', check: 'chk-1' }), false);
    assert.equal(ownAttemptAnswer(previous, { checkStatus: 'NO_MATCH', check: 'chk-2' }), true);
    const first = { ...v, attempts: [] };
    assert.equal(ownAttemptAnswer(first, { checkStatus: 'NO_MATCH' }), true, 'a first attempt takes the newest check');
  });

  it('whatever the order of polls, the next attempt’s link and the person’s start, attempt 2 ends only after the person began it (scheduler)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom('poll', 'poll', 'nextAttempt', 'begin', 'finish', 'tick'), { minLength: 3, maxLength: 10 }),
        fc.constantFrom('NO_MATCH', 'UNPROCESSABLE'),
        async (s, ops, ownStatus) => {
          const world = { attempt2Link: false, begun: false, finished: false };
          const { state, logic } = harness(waitingRecord(realNow()), (v) => {
            assert.equal(v.entityId, ENTITY);
            // The vendor's newest check: attempt 1's until the person begins the next one.
            const a: VendorAnswer = !world.begun
              ? { checkStatus: 'NO_MATCH', entityId: ENTITY }
              : world.finished
                ? { checkStatus: ownStatus, entityId: ENTITY }
                : { checkStatus: CHECKING, entityId: ENTITY };
            return s.schedule(Promise.resolve(a), `vendor ${a.checkStatus}`);
          });
          const run = async (op: string) => {
            switch (op) {
              case 'poll':
                return logic.execute({ type: 'observe', arrived: true }).catch(() => undefined);
              case 'nextAttempt':
                await s.schedule(Promise.resolve(), 'vendor link');
                if (await renewWithTurn(logic, nextLink(state.now))) world.attempt2Link = true;
                return undefined;
              case 'begin':
                if (world.attempt2Link) world.begun = true;
                return undefined;
              case 'finish':
                if (world.begun) world.finished = true;
                return undefined;
              default:
                state.now += MIN;
                return undefined;
            }
          };
          const endedBeforeBegun: string[] = [];
          const running = ops.map((op) =>
            s
              .schedule(Promise.resolve(op), `start ${op}`)
              .then(run)
              .then(() => {
                if (!world.begun && (state.v.attempts?.length ?? 0) > 1) endedBeforeBegun.push(op);
              }),
          );
          await s.waitFor(Promise.all(running));
          assert.deepEqual(endedBeforeBegun, [], 'attempt 2 was ended by attempt 1’s answer');
          for (const saved of state.saved) {
            if ((saved.attempts?.length ?? 0) > 1) assert.ok(world.begun, 'a second attempt recorded though the person never began it');
          }
          if (world.finished && state.v.attempts?.length === 2) assert.equal(state.v.attempts[1]!.checkStatus, ownStatus);
        },
      ),
      { numRuns: 200 },
    );
  });
});
