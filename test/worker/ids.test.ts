/**
 * The worker's ULIDs (worker/lib/ids.ts) are ULIDs the `ulid` package reads:
 * 26 Crockford base32 characters, the time in the first ten, random after.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeTime, isValid } from 'ulid';
import { ulid } from '../../worker/lib/ids';

describe('ULIDs', () => {
  it('carry their time, sort by it, and are valid ULIDs', () => {
    const t = Date.now();
    const ids = [ulid(t - 1), ulid(t), ulid(t + 60_000), ulid(2 ** 48 - 1), ulid(0)];
    for (const id of ids) {
      assert.match(id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
      assert.ok(isValid(id), id);
    }
    assert.equal(decodeTime(ids[1]!), t);
    assert.equal(decodeTime(ids[3]!), 2 ** 48 - 1);
    assert.equal(decodeTime(ids[4]!), 0);
    assert.ok(ids[0]! < ids[1]! && ids[1]! < ids[2]!);
  });
  it('differ in their random part', () => {
    const seen = new Set(Array.from({ length: 2000 }, () => ulid(1_000).slice(10)));
    assert.equal(seen.size, 2000);
  });
});
