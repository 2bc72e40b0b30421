/**
 * Dates for tests, derived from a clock (today's UTC day by default), never
 * written as literals that age: a fixed date of birth or expiry is right on
 * the day it is written and wrong some day after.
 */
import { dateOfBirthBounds, formatIsoDay, utcDay } from '../../rules/date-of-birth.js';

const DAY = 86_400_000;

/** The `YYYY-MM-DD` UTC day `years` whole years and `days` days before `now`. */
export function isoDayBefore(years: number, days = 0, now: Date = new Date()): string {
  const t = utcDay(now);
  let d = Date.UTC(t.year - years, t.month - 1, t.day);
  if (new Date(d).getUTCDate() !== t.day) d -= DAY; // 29 Feb in a common year → 28 Feb
  return formatIsoDay(utcDay(new Date(d - days * DAY)));
}

/** A date of birth of an adult, `years` old (default 36), well inside the rule. */
export const adultDateOfBirth = (years = 36, now: Date = new Date()): string => isoDayBefore(years, 40, now);

/** The oldest date of birth accepted on `now` (the person turned 120 today or recently). */
export const oldestDateOfBirth = (now: Date = new Date()): string => dateOfBirthBounds(now).oldest;

/** An ISO 8601 instant `seconds` after `now` (a link expiry that never lies in the past). */
export const isoInstantAfter = (seconds: number, now: Date = new Date()): string => new Date(now.getTime() + seconds * 1000).toISOString();

/** The latest 29 February at least `years` years before `now` (a leap-day birthday). */
export function leapDayBirth(years = 20, now: Date = new Date()): string {
  let y = utcDay(now).year - years;
  while (!(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) y--;
  return `${y}-02-29`;
}

/** The last and first day of a year `years` before `now` (the year-end edges). */
export const newYearsEve = (years = 30, now: Date = new Date()): string => `${utcDay(now).year - years}-12-31`;
export const newYearsDay = (years = 50, now: Date = new Date()): string => `${utcDay(now).year - years}-01-01`;

/**
 * The wall clock of other processes (workerd, Chromium), in ms. A node test
 * run with `test/support/clock-ahead.mjs` moves only this process's `Date`;
 * a record made here for workerd must use the clock workerd reads.
 */
export const realNow = (): number => Date.now() - Number(process.env.KYC_CLOCK_AHEAD ?? 0);
