/**
 * A partner's minimum age (registry `minAge`, environment `MIN_AGE`; unset = none): a younger person is refused
 * before any link is made, as the widget refuses them before any request. The rule itself is shared with the widget
 * (`rules/date-of-birth.ts` `youngerThan`), on the worker's one clock.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { youngerThan } from '../../rules/date-of-birth';
import { validationError } from './errors';

export const MIN_AGE_PROBLEM = 'must be a whole number of years from 1 to 120, such as 18';

/** `MIN_AGE` as written → whole years, or undefined (unset, or not 1–120: the configuration guard names it). */
export function minAgeOf(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,3}$/.test(value.trim())) return undefined;
  const n = Number(value);
  return n >= 1 && n <= 120 ? n : undefined;
}

/** `{ minAge }` when there is one (a partner object carries no `minAge: undefined`). */
export const minAgeSetting = (minAge: number | undefined): { minAge?: number } => (minAge ? { minAge } : {});

/** The issue the worker answers for a person younger than `minAge` (400 `VALIDATION_ERROR`, naming the field). */
export const tooYoungIssue = (minAge: number) => ({ issue: `must be at least ${minAge} years ago`, issueLocation: 'dateOfBirth' });

/**
 * Refuses (400 `VALIDATION_ERROR` naming `dateOfBirth`) a request whose `dateOfBirth` is of a person younger than the
 * page's partner allows. A request without a date of birth (a renewal, a resumed link) has nothing to check.
 */
export function requireMinAge(c: Context<AppEnv>, body: { dateOfBirth?: unknown }): void {
  const minAge = c.get('partner')?.minAge;
  if (!minAge || typeof body.dateOfBirth !== 'string') return;
  if (youngerThan(body.dateOfBirth, minAge, new Date(c.var.clock()))) throw validationError([tooYoungIssue(minAge)]);
}
