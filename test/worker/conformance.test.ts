/**
 * The executor's conformance suite (test/verifications/conformance.ts) against
 * the in-memory host the node tests run the app with, on a controlled clock.
 * The Durable Object passes the same cases in workerd (conformance-workerd.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cases } from '../verifications/conformance';
import { clockedEnv } from './harness';
import { record } from '../verifications/conformance';

describe('the verification executor, in memory', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const { store, clock } = clockedEnv();
      await c.run({ execute: (id, command) => store.execute(id, command), now: () => clock.now() });
    });
  }

  it('a record the store holds in the shape before the explicit state is read with its state derived', async () => {
    const { store, clock } = clockedEnv();
    const { state: _state, ...rest } = record(clock.now());
    store.records.set(rest.id, { ...rest, status: 'CHECKING', expiredAt: clock.now(), expiredReason: 'not_claimed' } as never);
    const read = await store.execute(rest.id, { type: 'read' });
    assert.deepEqual(read?.state, { name: 'expired', at: clock.now(), reason: 'not_claimed' });
  });
});
