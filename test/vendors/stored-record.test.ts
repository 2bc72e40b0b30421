/**
 * Records stored before there were vendors (all idv's) named idv's things in
 * its words: the return parameters a browser brought as `checkId` and
 * `token`, an attempt's check as `attempts[].checkId`. They are read in ours
 * (`worker/vendors/idv/stored-record.ts`, through `fromStored` as the Durable
 * Object reads its record) and still work: an earlier attempt's check never
 * ends the next attempt, a return bringing what it brought before is nothing
 * new, a redaction leaves none of them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredVerification, Verification } from '../../worker/verifications/verification';
import { upgradedRecord } from '../../worker/vendors/idv/stored-record';
import { fromStored, hinted, lifecycle, redacted, type VendorAnswer } from '../../worker/verifications/lifecycle';
import { VerificationLogic } from '../../worker/verifications/verification-logic';

const MIN = 60_000;
const NOW = Date.UTC(2026, 10, 28, 12);
const ENTITY = 'entity-old';

/** An idv verification in its second attempt, as the code before vendors stored it. */
const oldShaped = (): StoredVerification =>
  ({
    id: 'vrf_01JDSTOREDRECORD000000000',
    partnerId: 'alpha',
    partnerOrigin: 'https://alpha.example',
    customerRef: 'acct-1',
    entityId: ENTITY,
    workerOrigin: 'https://kyc.example',
    livemode: false,
    createdAt: NOW - 10 * MIN,
    linkCreatedAt: NOW - 10 * MIN,
    linkExpiresAt: NOW + 50 * MIN,
    deadline: NOW + 65 * MIN,
    state: { name: 'open' },
    polls: 3,
    webhook: { state: 'none', attempts: 0 },
    maxAttempts: 2,
    checkId: 'chk-1',
    token: 'tok-1',
    attempts: [{ checkStatus: 'NO_MATCH', endedAt: NOW - 5 * MIN, checkId: 'chk-1' }],
  }) as unknown as StoredVerification;

describe('a record stored with idv’s field names', () => {
  it('is read in ours; a record in ours is returned as it is', () => {
    const v = fromStored(oldShaped());
    assert.deepEqual(v.returnParams, { checkId: 'chk-1', token: 'tok-1' });
    assert.deepEqual(v.attempts, [{ checkStatus: 'NO_MATCH', endedAt: NOW - 5 * MIN, check: 'chk-1' }]);
    assert.equal('checkId' in v, false);
    assert.equal('token' in v, false);
    assert.equal(upgradedRecord(v), v, 'nothing to read again');
  });

  it('a return bringing the same parameters is nothing new, another is; a redaction leaves none', () => {
    const v = fromStored(oldShaped());
    assert.equal(hinted(v, { checkId: 'chk-1', token: 'tok-1' }), undefined);
    assert.deepEqual(hinted(v, { checkId: 'chk-2' })?.returnParams, { checkId: 'chk-2', token: 'tok-1' });
    const gone = redacted(v, NOW);
    assert.equal(gone.returnParams, undefined);
    assert.deepEqual(gone.attempts, [{ checkStatus: 'NO_MATCH', endedAt: NOW - 5 * MIN }]);
  });

  it('through the verification logic: the first attempt’s check does not end the second; the second’s own does', async () => {
    let stored: StoredVerification = oldShaped();
    const answers: VendorAnswer[] = [
      // The vendor still names the first attempt's check as the entity's newest, with a final word.
      { checkStatus: 'CHECKED_FAILED', entityId: ENTITY, check: 'chk-1' },
      { checkStatus: 'CHECKED_SUCCESS_CLEAR', entityId: ENTITY, check: 'chk-2' },
    ];
    let now = NOW;
    const logic = new VerificationLogic({
      // As the Durable Object reads its record.
      load: async () => fromStored(structuredClone(stored)),
      save: async (v: Verification) => {
        stored = structuredClone(v);
      },
      remove: async () => undefined,
      setAlarm: async () => undefined,
      now: () => now,
      schedule: { pollMs: 30_000, maxMs: 900_000 },
      askVendor: async () => answers.shift()!,
      release: async () => undefined,
    });
    const first = await logic.execute({ type: 'observe', arrived: true });
    assert.equal(lifecycle(first!), 'open', 'the first attempt’s check is not this attempt’s answer');
    now += MIN;
    const second = await logic.execute({ type: 'observe', arrived: true });
    assert.equal(lifecycle(second!), 'final');
    assert.deepEqual(
      second!.attempts?.map((a) => a.check),
      ['chk-1', 'chk-2'],
    );
    assert.equal('checkId' in stored, false, 'written back in ours');
  });
});
