/** The worker's field issues, placed on the fields they are about. */
import type { ErrorKey, FieldName } from '../fields.js';

const FIELD: Record<string, FieldName> = {
  name: 'familyName',
  'name.givenName': 'givenName',
  'name.middleName': 'middleName',
  'name.familyName': 'familyName',
  dateOfBirth: 'dateOfBirth',
  phone: 'phoneNumber',
  'phone.code': 'phoneCode',
  'phone.number': 'phoneNumber',
  consent: 'consent',
};
const MESSAGE: Partial<Record<FieldName, ErrorKey>> = {
  dateOfBirth: 'errDob',
  phoneCode: 'errCode',
  phoneNumber: 'errNumber',
  consent: 'errConsent',
};

/** The worker's `issueLocation` (`name.familyName`, `phone.number`, …) → a field and its message; undefined for what is not a field (`returnUrl`). */
export function fieldOfIssue(location: string, issue = ''): [FieldName, ErrorKey] | undefined {
  const field = FIELD[location];
  // The partner's minimum age, as the worker words it ("must be at least 18 years ago").
  if (field === 'dateOfBirth' && issue.startsWith('must be at least')) return [field, 'errTooYoung'];
  return field && [field, MESSAGE[field] ?? 'errName'];
}
