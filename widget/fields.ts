/**
 * What the person types: the fields, their order, and their error messages.
 * The rules they must meet and the tidying are in `run/validate.ts` (errors
 * show only once the person submits, when the run chunk is here).
 */
import type { Strings } from './i18n/en.js';

export type FieldName = 'givenName' | 'middleName' | 'familyName' | 'dateOfBirth' | 'phoneCode' | 'phoneNumber' | 'consent';

/** Order of the fields on screen (first invalid one gets focus). */
export const FIELD_ORDER: FieldName[] = ['givenName', 'middleName', 'familyName', 'dateOfBirth', 'phoneCode', 'phoneNumber', 'consent'];

export interface Values {
  givenName: string;
  middleName: string;
  familyName: string;
  /** The date of birth as typed, in three fields. */
  dobDay: string;
  dobMonth: string;
  dobYear: string;
  phoneCode: string;
  phoneNumber: string;
  consent: boolean;
}

/** The `prefill` property: values to show in the form, in the request's shapes (the person may correct each). */
export interface Prefill {
  name?: { givenName?: string; middleName?: string; familyName?: string };
  /** `YYYY-MM-DD`. */
  dateOfBirth?: string;
  phone?: { code?: string; number?: string };
}

/** A message key of the dictionary that describes a field problem. */
export type ErrorKey = keyof Pick<
  Strings,
  | 'errFamilyName'
  | 'errName'
  | 'errNameChars'
  | 'errDob'
  | 'errTooYoung'
  | 'errDobDay'
  | 'errDobMonth'
  | 'errDobYear'
  | 'errCode'
  | 'errNumber'
  | 'errConsent'
>;
export type FieldErrors = Partial<Record<FieldName, ErrorKey>>;

/** The date-of-birth fields an error is about: the part it names, or all three. */
export const dobPartsOf = (key: ErrorKey | undefined): string[] =>
  !key ? [] : key === 'errDob' || key === 'errTooYoung' ? ['dobDay', 'dobMonth', 'dobYear'] : [`dob${key.slice(6)}`];
