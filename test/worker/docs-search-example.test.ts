/**
 * docs/server-api.md's entity-search example and its guidance add up as the
 * sandbox scores them (sandbox/search.ts, the table in docs/sandbox.md): the
 * confidence the example shows for its criteria, and the scores the
 * "Which match to trust" section names.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { score } from '../../sandbox/search';
import { ROOT } from '../support/wrangler';

const page = readFileSync(join(ROOT, 'docs/server-api.md'), 'utf8');
const ADA = { name: { givenName: 'Ada', familyName: 'Lovelace' }, dateOfBirth: { dateOfBirth: '1990-12-10' } };

describe('docs/server-api.md: entity search confidence', () => {
  it("the example's confidence is the sandbox's score for the example's criteria", () => {
    const section = page.slice(page.indexOf('## Returning people'));
    const criteria = JSON.parse(/-d '(\{.*\})'/.exec(section)![1]!) as typeof ADA;
    const shown = Number(/"confidence": (\d+)/.exec(section)![1]);
    assert.equal(shown, score(criteria, ADA));
  });

  it('the guidance names the scores the sandbox gives', () => {
    const guidance = page.slice(page.indexOf('### Which match to trust'));
    const all = score(ADA, ADA);
    assert.ok(guidance.includes(`result of **${all}** means all three are equal`), `all three equal: ${all}`);
    const bill = score(
      { ...ADA, name: { familyName: 'Lovelace', givenName: 'Bill' } },
      { ...ADA, name: { familyName: 'Lovelace', givenName: 'William' } },
    );
    assert.ok(guidance.includes(`given name scores ${bill}`), `a variant of the given name: ${bill}`);
    const year = score(ADA, { ...ADA, dateOfBirth: { dateOfBirth: '1990-01-01' } });
    assert.ok(guidance.includes(`only the year equal ${year}`), `year only: ${year}`);
    const doc = { idType: 'PASSPORT', country: 'AUS', idNumber: 'PA1234567' };
    const withDoc = score({ ...ADA, identityDocs: [doc] }, { ...ADA, identityDocs: [doc] });
    assert.ok(guidance.includes(`${withDoc} with a document`), `with a document: ${withDoc}`);
  });
});
