/**
 * The rules what the person typed must meet before any request, and the
 * tidying the widget does. Full phone parsing is the worker's job: phone
 * libraries are larger than this whole widget. The date of birth follows the
 * shared rule (rules/date-of-birth.ts), as the worker and the sandbox do.
 */
import type { OnboardingLinkRequest } from '../../worker/contract.js';
import { dateOfBirthProblem, dayFromParts, youngerThan } from '../../rules/date-of-birth.js';
import { isVisiblyBlank, nameCharacterProblem, normaliseName } from '../../rules/name.js';
import type { FieldErrors, Values } from '../fields.js';

const MAX_NAME = 100;

const DOB_PART_ERROR = { day: 'errDobDay', month: 'errDobMonth', year: 'errDobYear' } as const;

/**
 * Digits as the person's keyboard gives them, in ASCII: Arabic-Indic (٠١٢),
 * Persian (۰۱۲), Devanagari, Bengali, Thai, full-width (０１２) and every other
 * decimal digit Unicode knows. Each script's digits are a run of ten code
 * points starting at its zero, so a digit's value is its distance from the
 * start of its run.
 */
export function asciiDigits(s: string): string {
  return s.replace(/\p{Nd}/gu, (d) => {
    const c = d.codePointAt(0)!;
    let zero = c;
    while (/\p{Nd}/u.test(String.fromCodePoint(zero - 1))) zero--;
    return String((c - zero) % 10);
  });
}

/** What the person typed, with the digits of the date and the phone number in ASCII. */
const withAsciiDigits = (v: Values): Values => ({
  ...v,
  dobDay: asciiDigits(v.dobDay),
  dobMonth: asciiDigits(v.dobMonth),
  dobYear: asciiDigits(v.dobYear),
  phoneCode: asciiDigits(v.phoneCode),
  phoneNumber: asciiDigits(v.phoneNumber),
});

/** NFC, trim and collapse runs of whitespace; a name a reader cannot see (Hangul fillers, blank Braille…) is no name (rules/name.ts, as the worker). */
export const tidyName = (s: string): string => (isVisiblyBlank(s) ? '' : normaliseName(s));

/** `61`, ` +61 `, `0061` → `+61`. */
export function tidyCode(s: string): string {
  const digits = asciiDigits(s).replace(/\D/g, '').replace(/^00/, '');
  return digits ? `+${digits}` : '';
}

/**
 * Remove spaces, dashes, dots and brackets; drop the country code if the person
 * typed it again, and a trunk `0` after it (`0412 345 678` with +61 → `412345678`).
 */
export function tidyNumber(number: string, code: string): string {
  let n = number.replace(/[\s\-.()\u00a0]/g, '');
  const cc = code.slice(1);
  if (cc) {
    if (n.startsWith(`+${cc}`)) n = n.slice(cc.length + 1);
    else if (n.startsWith(`00${cc}`)) n = n.slice(cc.length + 2);
  }
  return n.replace(/^0/, '');
}

/** The rules docs/api.md's browser-facing API states, checked before any request. */
export function validate(typed: Values, today = new Date(), minAge?: number): FieldErrors {
  const v = withAsciiDigits(typed);
  const e: FieldErrors = {};
  for (const f of ['givenName', 'middleName'] as const) {
    const name = tidyName(v[f]);
    if (name.length > MAX_NAME) e[f] = 'errName';
    else if (nameCharacterProblem(name)) e[f] = 'errNameChars';
  }
  const family = tidyName(v.familyName);
  if (!family) e.familyName = 'errFamilyName';
  else if (family.length > MAX_NAME) e.familyName = 'errName';
  else if (nameCharacterProblem(family)) e.familyName = 'errNameChars';

  // The part that is wrong, named: "Enter a real day of the month". Blank: all three are.
  const dob = dayFromParts(v.dobDay, v.dobMonth, v.dobYear);
  if (!(v.dobDay + v.dobMonth + v.dobYear).trim()) e.dateOfBirth = 'errDob';
  else if ('wrong' in dob) e.dateOfBirth = DOB_PART_ERROR[dob.wrong];
  else if (dateOfBirthProblem(dob.iso, today)) e.dateOfBirth = 'errDob';
  else if (youngerThan(dob.iso, minAge, today)) e.dateOfBirth = 'errTooYoung';

  const code = tidyCode(v.phoneCode);
  if (!/^\+[1-9]\d{0,3}$/.test(code)) e.phoneCode = 'errCode';
  const number = tidyNumber(v.phoneNumber, code);
  if (!/^\+?\d{4,15}$/.test(number)) e.phoneNumber = 'errNumber';

  if (!v.consent) e.consent = 'errConsent';
  return e;
}

/** The request body's person part, tidied. */
export function toRequest(typed: Values): Pick<OnboardingLinkRequest, 'name' | 'dateOfBirth' | 'phone' | 'consent'> {
  const v = withAsciiDigits(typed);
  const code = tidyCode(v.phoneCode);
  const name: OnboardingLinkRequest['name'] = { familyName: tidyName(v.familyName) };
  const given = tidyName(v.givenName);
  const middle = tidyName(v.middleName);
  if (given) name.givenName = given;
  if (middle) name.middleName = middle;
  const dob = dayFromParts(v.dobDay, v.dobMonth, v.dobYear);
  return { name, dateOfBirth: 'iso' in dob ? dob.iso : '', phone: { code, number: tidyNumber(v.phoneNumber, code) }, consent: true };
}
