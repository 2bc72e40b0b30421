/**
 * Entity search with many vendor matches (issue 40): the owner look-up binds
 * at most D1's 100 parameters a statement, whatever the vendor returns (it
 * answered 500 from 100 matches on). A D1 double that refuses a statement
 * with more than 100 bound values, as D1 does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { entityKey, ownedEntities } from '../../worker/verifications/verification-index';

function d1Double(owned: Set<string>) {
  const statements: number[] = [];
  const db = {
    prepare: (sql: string) => ({
      bind: (...args: unknown[]) => ({
        all: async () => {
          if (args.length > 100) throw new Error('D1_ERROR: too many SQL variables');
          statements.push(args.length);
          assert.match(sql, /entity_owners/);
          return { results: (args.slice(2) as string[]).filter((k) => owned.has(k)).map((entity_key) => ({ entity_key })) };
        },
      }),
    }),
  } as unknown as D1Database;
  return { db, statements };
}

describe('ownedEntities', () => {
  it('answers for 120 vendor matches in statements of at most 100 parameters', async () => {
    const ids = Array.from({ length: 120 }, (_, i) => `entity-${i}`);
    const mine = new Set([await entityKey('entity-3'), await entityKey('entity-117')]);
    const { db, statements } = d1Double(mine);
    const owned = await ownedEntities(db, 'alpha', true, ids);
    assert.deepEqual([...owned].sort(), ['entity-117', 'entity-3']);
    assert.ok(statements.length >= 2 && statements.every((n) => n <= 100), JSON.stringify(statements));
  });

  it('asks nothing for no matches', async () => {
    const { db, statements } = d1Double(new Set());
    assert.equal((await ownedEntities(db, 'alpha', true, [])).size, 0);
    assert.equal(statements.length, 0);
  });
});
