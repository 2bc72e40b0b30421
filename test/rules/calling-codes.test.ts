import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getCountries, getCountryCallingCode } from 'libphonenumber-js';
import { codeOf, regionsOf } from '../../widget/calling-codes.js';

describe("the widget's calling-code table", () => {
  it('gives every region the calling code libphonenumber-js (the worker) gives it', () => {
    for (const region of getCountries()) assert.equal(codeOf(region), `+${getCountryCallingCode(region)}`, region);
  });

  it('names the main region of a shared code first, and nothing for an unknown code', () => {
    assert.equal(regionsOf('+1')[0], 'US');
    assert.equal(regionsOf('+44')[0], 'GB');
    assert.deepEqual(regionsOf('+356'), ['MT']);
    assert.deepEqual(regionsOf('+999'), []);
    assert.equal(codeOf('de'), '+49');
    assert.equal(codeOf('XX'), undefined);
  });
});
