/**
 * The date-of-birth rule, in the one place the widget, the worker and the
 * sandbox all read it from. Plain functions, no dependencies: the widget
 * bundles it, the worker validates with it.
 *
 * The rule: `YYYY-MM-DD`, a real calendar date, before today, and the person
 * is at most 120 years old, i.e. born after the same day 121 years ago (so
 * someone on their 120th birthday is accepted, on their 121st refused).
 * "Today" is the UTC date on both sides, so the widget and the worker never
 * disagree because of the person's time zone.
 */

/** The oldest age, in whole years, a person may be. */
export const MAX_AGE_YEARS = 120;

/** A calendar day, months 1–12. */
export interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` → its parts, or undefined when it is not written so. */
export function parseIsoDay(value: string): CalendarDay | undefined {
  const m = ISO_DAY.exec(value);
  return m ? { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) } : undefined;
}

/** True when the day exists (no 30 February, no month 13). */
export function isRealDay({ year, month, day }: CalendarDay): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear does not.
  d.setUTCFullYear(year);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** True when `value` is `YYYY-MM-DD` and a real day. */
export function isCalendarDate(value: string): boolean {
  const day = parseIsoDay(value);
  return day !== undefined && isRealDay(day);
}

/** The UTC calendar day of an instant. */
export function utcDay(now: Date): CalendarDay {
  return { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1, day: now.getUTCDate() };
}

/** `YYYY-MM-DD` of a day. */
export function formatIsoDay({ year, month, day }: CalendarDay): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** `YYYYMMDD` as a number: differences of these count whole years (see `ageOn`). */
const serial = ({ year, month, day }: CalendarDay) => year * 10_000 + month * 100 + day;

/**
 * Whole years from `birth` to `today`. A 29 February birthday falls on
 * 1 March in other years (the person is not a year older on 28 February):
 * 20290228 − 19080229 = 1209999, so 120; 20290301 − 19080229 = 1210072, 121.
 */
export const ageOn = (birth: CalendarDay, today: CalendarDay): number => Math.floor((serial(today) - serial(birth)) / 10_000);

/** Why a date of birth is refused; undefined when it is fine. */
export type DateOfBirthProblem = 'format' | 'not-a-date' | 'not-past' | 'too-old';

export function dateOfBirthProblem(value: string, now: Date = new Date()): DateOfBirthProblem | undefined {
  const birth = parseIsoDay(value);
  if (!birth) return 'format';
  if (!isRealDay(birth)) return 'not-a-date';
  const today = utcDay(now);
  if (serial(birth) >= serial(today)) return 'not-past';
  if (ageOn(birth, today) > MAX_AGE_YEARS) return 'too-old';
  return undefined;
}

/**
 * A partner's minimum age (`minAge`, whole years): true when the person born on
 * `value` is younger than `minAge` on `now`'s UTC day (a birthday counts from
 * its day: 29 February from 1 March in other years, as `ageOn`). A date that
 * is not a date of birth at all is `dateOfBirthProblem()`'s, never "too young".
 */
export function youngerThan(value: string, minAge: number | undefined, now: Date = new Date()): boolean {
  const birth = parseIsoDay(value);
  if (!minAge || !birth || !isRealDay(birth)) return false;
  return ageOn(birth, utcDay(now)) < minAge;
}

/**
 * The oldest and the youngest date of birth the rule accepts on `now`'s UTC
 * day (for a date picker's `min`/`max`, and for tests that need the edges).
 */
export function dateOfBirthBounds(now: Date = new Date()): { oldest: string; youngest: string } {
  const t = utcDay(now);
  const DAY = 86_400_000;
  // Born after the same day 121 years ago; where that day is 29 February of a
  // common year, the day after is 1 March (Date.UTC rolls 29 Feb to 1 Mar, so
  // step back to 28 Feb first).
  let sameDay = Date.UTC(t.year - MAX_AGE_YEARS - 1, t.month - 1, t.day);
  if (new Date(sameDay).getUTCDate() !== t.day) sameDay -= DAY;
  const today = Date.UTC(t.year, t.month - 1, t.day);
  return { oldest: formatIsoDay(utcDay(new Date(sameDay + DAY))), youngest: formatIsoDay(utcDay(new Date(today - DAY))) };
}

/** A part of a date typed as three fields. */
export type DatePart = 'day' | 'month' | 'year';

/**
 * A date of birth typed as three fields (day, month, year, as people know it
 * by heart) → `YYYY-MM-DD`, or the part that is wrong: a day outside 1–31 or
 * not in that month (31 April, 29 February of a common year), a month outside
 * 1–12, a year not written with four digits. Whether the day is in the past
 * and at most 120 years ago is `dateOfBirthProblem()`'s job, on the result.
 */
export function dayFromParts(day: string, month: string, year: string): { iso: string } | { wrong: DatePart } {
  const n = (s: string, max: number) => (/^\d{1,2}$/.test(s.trim()) && +s >= 1 && +s <= max ? +s : 0);
  const d = n(day, 31);
  const m = n(month, 12);
  if (!d) return { wrong: 'day' };
  if (!m) return { wrong: 'month' };
  if (!/^\d{4}$/.test(year.trim())) return { wrong: 'year' };
  const parts = { year: +year, month: m, day: d };
  return isRealDay(parts) ? { iso: formatIsoDay(parts) } : { wrong: 'day' };
}
