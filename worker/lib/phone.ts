/**
 * Phone numbers: parsed, validated and normalised with libphonenumber-js,
 * using its "mobile" metadata, under which a number is valid only if it can
 * be a mobile number. The field is "Mobile number" in every case; an SMS
 * additionally needs a destination country on SMS_ALLOWED_COUNTRIES. Premium-
 * rate, shared-cost, toll-free and fixed-line numbers are therefore refused
 * before any vendor call (the SMS-pumping guard). The metadata of the
 * non-geographic codes (+800 freephone, +881 satellite, +882/+883
 * international networks, +979 premium rate, +870 Inmarsat) is looser: a
 * number must also belong to a country and be of type mobile (or
 * fixed-line-or-mobile, where a country's plan cannot tell them apart).
 *
 * The metadata is libphonenumber-js's "mobile" set without its number
 * formats (worker/lib/phone-metadata.json, made by scripts/phone-metadata.mjs):
 * parsing and validation never read them, and they are a third of its size.
 */
import { parsePhoneNumberFromString as parseWith, type MetadataJson } from 'libphonenumber-js/core';
import metadataJson from './phone-metadata.json';
import type { Issue } from './errors';

const metadata = metadataJson as unknown as MetadataJson;
const parsePhoneNumberFromString = (text: string, options?: { defaultCallingCode: string }) =>
  options ? parseWith(text, options, metadata) : parseWith(text, metadata);

export interface ParsedPhone {
  /** E.164, e.g. +61412345678 */
  e164: string;
  /** +61 */
  code: string;
  /** National significant number, e.g. 412345678 */
  national: string;
  /** ISO 3166-1 alpha-2, when the number pins one down. */
  country?: string;
}

export function parsePhone(code: string, number: string): { phone?: ParsedPhone; issues: Issue[] } {
  const digits = number.replace(/[\s\-().]/g, '');
  if (!/^\+?\d{4,20}$/.test(digits)) {
    return { issues: [{ issue: 'must contain only digits, spaces and dashes', issueLocation: 'phone.number' }] };
  }
  const callingCode = code.replace(/^\+/, '');
  let parsed: ReturnType<typeof parsePhoneNumberFromString>;
  try {
    parsed = digits.startsWith('+')
      ? parsePhoneNumberFromString(digits)
      : parsePhoneNumberFromString(digits, { defaultCallingCode: callingCode });
  } catch (e) {
    // The library throws on input it has no metadata for ("Unknown calling
    // code: 999"): that is the person's typo, a 400 on the field, never a 500.
    return /calling code/i.test(e instanceof Error ? e.message : String(e))
      ? { issues: [{ issue: 'is not a country calling code', issueLocation: 'phone.code' }] }
      : { issues: [{ issue: 'is not a phone number', issueLocation: 'phone.number' }] };
  }
  if (!parsed) return { issues: [{ issue: 'is not a phone number', issueLocation: 'phone.number' }] };
  if (digits.startsWith('+') && parsed.countryCallingCode !== callingCode) {
    return { issues: [{ issue: 'does not match the country code', issueLocation: 'phone.code' }] };
  }
  if (!parsed.isValid()) {
    return { issues: [{ issue: 'is not a valid mobile number for this country code', issueLocation: 'phone.number' }] };
  }
  const type = parsed.getType();
  if (!parsed.country) {
    return { issues: [{ issue: 'is not a country calling code for mobile numbers', issueLocation: 'phone.code' }] };
  }
  if (type !== 'MOBILE' && type !== 'FIXED_LINE_OR_MOBILE') {
    return { issues: [{ issue: 'is not a valid mobile number for this country code', issueLocation: 'phone.number' }] };
  }
  return {
    phone: { e164: parsed.number, code: `+${parsed.countryCallingCode}`, national: parsed.nationalNumber, country: parsed.country },
    issues: [],
  };
}
