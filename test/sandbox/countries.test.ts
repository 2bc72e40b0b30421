/**
 * The sandbox's country conversion (the spec: alpha-3 wanted, other forms
 * converted): codes from i18n-iso-countries' table, English names from
 * Intl.DisplayNames, regardless of case, accents and punctuation.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toAlpha3 } from '../../sandbox/countries';

describe('country conversion', () => {
  it('takes alpha-3, alpha-2 and numeric codes', () => {
    assert.equal(toAlpha3('AUS'), 'AUS');
    assert.equal(toAlpha3(' au '), 'AUS');
    assert.equal(toAlpha3('036'), 'AUS');
    assert.equal(toAlpha3('36'), 'AUS');
    assert.equal(toAlpha3('UK'), 'GBR');
    assert.equal(toAlpha3('EL'), 'GRC');
  });

  it('takes English names, long and short, whatever the case, accents and punctuation', () => {
    assert.equal(toAlpha3('United Kingdom'), 'GBR');
    assert.equal(toAlpha3('united states'), 'USA');
    assert.equal(toAlpha3('Côte d’Ivoire'), 'CIV');
    assert.equal(toAlpha3("cote d'ivoire"), 'CIV');
    assert.equal(toAlpha3('Bosnia & Herzegovina'), 'BIH');
    assert.equal(toAlpha3('South Korea'), 'KOR');
  });

  it('refuses what is not a country', () => {
    for (const v of ['', '  ', 'XX', 'ZZZ', '999', 'Narnia', 'Europe']) assert.equal(toAlpha3(v), undefined, v);
  });
});
