/**
 * The index row's writes (worker/verifications/newest-last.ts): whatever the
 * order in which changes, D1's answers and a redaction's delete interleave,
 * rows land oldest to newest, the newest change is the row that stays, and no
 * row lands after the delete. fast-check's scheduler orders every step: each
 * change (owe, then flush without waiting, as the object's `waitUntil` does),
 * each D1 write's answer, and the delete (stop, then the row removed).
 * The same property run against a writer with no order at all must fail, so
 * the property can tell.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { NewestLast } from '../../worker/verifications/newest-last';

interface Writer {
  owe(v: number): void;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** Before newest-last.ts: each change wrote its own row at once, whatever was under way. */
function unordered(write: (v: number) => Promise<void>): Writer {
  let pending: number | undefined;
  return {
    owe: (v) => void (pending = v),
    flush: async () => {
      const v = pending;
      pending = undefined;
      if (v !== undefined) await write(v);
    },
    stop: async () => void (pending = undefined),
  };
}

function property(make: (write: (v: number) => Promise<void>) => Writer) {
  return fc.asyncProperty(
    fc.scheduler(),
    fc.integer({ min: 1, max: 6 }),
    fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
    async (s, changes, deleteAfter) => {
      let version = 0;
      let removed = false;
      let row: number | undefined;
      const landed: number[] = [];
      const afterDelete: number[] = [];
      // A D1 write takes effect when the scheduler lets its answer come, not when it is asked.
      const writer = make((v) =>
        s.schedule(Promise.resolve(v), `write ${v}`).then(() => {
          if (removed) afterDelete.push(v);
          row = v;
          landed.push(v);
        }),
      );
      const running: Promise<unknown>[] = [];
      for (let i = 0; i < changes; i++) {
        running.push(
          s.schedule(Promise.resolve('change')).then(() => {
            if (removed) return; // a deleted verification changes no more
            writer.owe(++version);
            running.push(writer.flush());
          }),
        );
      }
      if (deleteAfter !== undefined) {
        running.push(
          s.schedule(Promise.resolve('delete')).then(async () => {
            await writer.stop();
            removed = true;
            row = undefined;
          }),
        );
      }
      // Everything settled, releasing what is scheduled as it goes (a change's flush adds to `running`).
      const settled = async () => {
        for (let n = -1; n !== running.length;) {
          n = running.length;
          await Promise.all(running);
        }
      };
      await s.waitFor(settled());

      assert.deepEqual(
        landed,
        [...landed].sort((a, b) => a - b),
        `rows landed out of order: ${landed.join(', ')}\n${s
          .report()
          .map((r) => r.label)
          .join(' → ')}`,
      );
      if (deleteAfter === undefined) assert.equal(row, version, `the newest change (${version}) is not the row: ${row}`);
      else {
        assert.deepEqual(afterDelete, [], 'a row landed after the delete');
        assert.equal(row, undefined);
      }
    },
  );
}

describe('index row writes, newest last', () => {
  it('land in order, leave the newest, and never after the delete, in every interleaving', async () => {
    await fc.assert(
      property((write) => new NewestLast<number>(write)),
      { numRuns: 300 },
    );
  });

  it('the same property finds the fault in a writer without order (the property can fail)', async () => {
    const out = await fc.check(property(unordered), { numRuns: 300 });
    assert.equal(out.failed, true, 'no interleaving made the unordered writer fail');
  });
});
