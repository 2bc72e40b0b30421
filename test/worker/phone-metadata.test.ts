/**
 * The worker's phone metadata (worker/lib/phone-metadata.json) is
 * libphonenumber-js's "mobile" metadata without number formats, for bundle
 * size. Nothing may change for the person typing: every country's example
 * mobile number, and variations of it (national prefix, international form,
 * one digit more, one less, another last digit, a landline-looking prefix),
 * parses and validates exactly as under the library's own mobile metadata.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { getCountryCallingCode, parsePhoneNumberFromString, type CountryCode, type MetadataJson } from 'libphonenumber-js/core';
import trimmedJson from '../../worker/lib/phone-metadata.json';
import { parsePhone } from '../../worker/lib/phone';

const require = createRequire(import.meta.url);
const full = require('libphonenumber-js/metadata.mobile.json') as MetadataJson;
const examples = require('libphonenumber-js/examples.mobile.json') as Record<string, string>;
const trimmed = trimmedJson as unknown as MetadataJson;

function outcome(text: string, callingCode: string | undefined, metadata: MetadataJson): string {
  try {
    const p = callingCode
      ? parsePhoneNumberFromString(text, { defaultCallingCode: callingCode }, metadata)
      : parsePhoneNumberFromString(text, metadata);
    if (!p) return 'none';
    return JSON.stringify([p.number, p.countryCallingCode, p.nationalNumber, p.country, p.isValid(), p.isPossible(), p.getType()]);
  } catch (e) {
    return `throws ${(e as Error).message}`;
  }
}

describe('phone metadata without formats', () => {
  it('is what scripts/phone-metadata.mjs makes from the installed libphonenumber-js', () => {
    execFileSync('node', ['scripts/phone-metadata.mjs', '--check'], { stdio: 'pipe' });
  });

  it('parses and validates every country’s example mobile number, and variations of it, as the full mobile metadata does', () => {
    let compared = 0;
    let valid = 0;
    for (const [country, national] of Object.entries(examples)) {
      const code = getCountryCallingCode(country as CountryCode, full);
      const last = national.at(-1)!;
      const variants = [
        national,
        `0${national}`,
        `${national}${last}`,
        national.slice(0, -1),
        `${national.slice(0, -1)}${last === '9' ? '0' : String(Number(last) + 1)}`,
        `2${national.slice(1)}`,
        `${national.slice(0, 3)} ${national.slice(3)}`,
      ];
      for (const v of variants) {
        for (const [text, cc] of [
          [v, code],
          [`+${code}${v}`, undefined],
        ] as const) {
          const a = outcome(text, cc, trimmed);
          assert.equal(a, outcome(text, cc, full), `${country} ${text}`);
          compared++;
          if (a.includes('true,true,"MOBILE"')) valid++;
        }
      }
    }
    assert.ok(compared > 2000, `compared ${compared}`);
    assert.ok(valid > 200, `the example mobiles are valid (${valid})`);
  });

  it('the worker still tells a mobile from a landline and a wrong calling code', () => {
    assert.equal(parsePhone('+61', '0412 345 678').phone?.e164, '+61412345678');
    assert.equal(parsePhone('+61', '02 9374 4000').issues[0]?.issueLocation, 'phone.number');
    assert.equal(parsePhone('+999', '412345678').issues[0]?.issueLocation, 'phone.code');
  });
});
