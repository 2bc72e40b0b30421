/**
 * The date-of-birth rule (rules/date-of-birth.ts) with a controlled clock:
 * both age edges, leap days, the UTC day boundary, and that the widget's
 * check, the worker's schema and the sandbox read the same rule.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ageOn,
  dateOfBirthBounds,
  dateOfBirthProblem,
  dayFromParts,
  isCalendarDate,
  MAX_AGE_YEARS,
  parseIsoDay,
  youngerThan,
} from '../../rules/date-of-birth';
import { OnboardingLinkRequest } from '../../worker/contract';
import { validate } from '../../widget/run/validate';
import { isoDayBefore, leapDayBirth } from '../support/dates';

/** A controlled clock: an instant on a UTC day. */
const at = (iso: string) => new Date(iso);

/** `YYYY-MM-DD` as the widget's three fields would hold it (anything else: all in the year field). */
const dobFields = (iso: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? { dobYear: m[1]!, dobMonth: m[2]!, dobDay: m[3]! } : { dobYear: iso, dobMonth: '', dobDay: '' };
};

const widgetAccepts = (dob: string, now: Date) =>
  validate(
    { givenName: '', middleName: '', familyName: 'Lee', ...dobFields(dob), phoneCode: '+61', phoneNumber: '412345678', consent: true },
    now,
  ).dateOfBirth === undefined;

describe('date of birth: at most 120 years old, in the past, UTC today', () => {
  const now = at('2026-11-23T12:00:00Z');

  it('accepts someone on their 120th birthday and the day before their 121st', () => {
    assert.equal(dateOfBirthProblem('1906-11-23', now), undefined); // 120 today
    assert.equal(dateOfBirthProblem('1905-11-24', now), undefined); // 121 tomorrow
    assert.equal(dateOfBirthBounds(now).oldest, '1905-11-24');
  });

  it('refuses someone on their 121st birthday and anyone older', () => {
    assert.equal(dateOfBirthProblem('1905-11-23', now), 'too-old');
    assert.equal(dateOfBirthProblem('1800-01-01', now), 'too-old');
  });

  it('refuses today and the future, accepts yesterday', () => {
    assert.equal(dateOfBirthProblem('2026-11-23', now), 'not-past');
    assert.equal(dateOfBirthProblem('2026-11-24', now), 'not-past');
    assert.equal(dateOfBirthProblem('2026-11-22', now), undefined);
    assert.equal(dateOfBirthBounds(now).youngest, '2026-11-22');
  });

  it('refuses what is not a date written YYYY-MM-DD, or not a real day', () => {
    for (const v of ['', '1990-1-2', '02/01/1990', '1990-01-01T00:00:00Z', '19900101', '２０００-０１-０１'])
      assert.equal(dateOfBirthProblem(v, now), 'format', v);
    for (const v of ['1990-02-29', '1990-13-01', '1990-00-10', '1990-04-31']) assert.equal(dateOfBirthProblem(v, now), 'not-a-date', v);
    assert.equal(isCalendarDate('2000-02-29'), true);
    assert.equal(isCalendarDate('1900-02-29'), false);
    assert.equal(isCalendarDate('0004-02-29'), true); // years below 100 are not 19xx
  });

  it('counts a 29 February birthday from 1 March in common years', () => {
    assert.equal(ageOn(parseIsoDay('1908-02-29')!, parseIsoDay('2029-02-28')!), 120);
    assert.equal(ageOn(parseIsoDay('1908-02-29')!, parseIsoDay('2029-03-01')!), 121);
    assert.equal(dateOfBirthProblem('1908-02-29', at('2029-02-28T00:00:00Z')), undefined);
    assert.equal(dateOfBirthProblem('1908-02-29', at('2029-03-01T00:00:00Z')), 'too-old');
    // On a 29 February, 121 years ago has no 29 February: the oldest is 1 March.
    const leap = at('2028-02-29T08:00:00Z');
    assert.equal(dateOfBirthBounds(leap).oldest, '1907-03-01');
    assert.equal(dateOfBirthProblem('1907-03-01', leap), undefined);
    assert.equal(dateOfBirthProblem('1907-02-28', leap), 'too-old');
  });

  it('changes its answer exactly at midnight UTC, whatever the local time zone', () => {
    const before = at('2026-11-23T23:59:59.999Z');
    const after = at('2026-11-24T00:00:00.000Z');
    const previousTz = process.env.TZ;
    try {
      for (const tz of ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
        process.env.TZ = tz; // UTC+14 and UTC−11: local "today" differs from UTC here
        assert.equal(dateOfBirthProblem('1906-11-24', before), undefined, tz);
        assert.equal(dateOfBirthProblem('1906-11-24', after), undefined, tz);
        assert.equal(dateOfBirthProblem('1905-11-24', before), undefined, tz);
        assert.equal(dateOfBirthProblem('1905-11-24', after), 'too-old', tz);
        assert.equal(dateOfBirthProblem('2026-11-23', before), 'not-past', tz);
        assert.equal(dateOfBirthProblem('2026-11-23', after), undefined, tz);
        assert.equal(widgetAccepts('1905-11-24', before), true, tz);
        assert.equal(widgetAccepts('1905-11-24', after), false, tz);
        assert.equal(widgetAccepts('2026-11-23', before), false, tz);
        assert.equal(widgetAccepts('2026-11-23', after), true, tz);
      }
    } finally {
      if (previousTz === undefined) delete process.env.TZ;
      else process.env.TZ = previousTz;
    }
  });

  it('bounds agree with the rule on every day of four years of clocks', () => {
    const start = Date.UTC(2027, 0, 1);
    for (let i = 0; i < 4 * 366; i++) {
      const clock = new Date(start + i * 86_400_000 + 3_600_000);
      const { oldest, youngest } = dateOfBirthBounds(clock);
      assert.equal(dateOfBirthProblem(oldest, clock), undefined, `${clock.toISOString()} oldest ${oldest}`);
      assert.equal(dateOfBirthProblem(youngest, clock), undefined, `${clock.toISOString()} youngest ${youngest}`);
      const dayBefore = new Date(Date.parse(`${oldest}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
      assert.equal(dateOfBirthProblem(dayBefore, clock), 'too-old', `${clock.toISOString()} ${dayBefore}`);
      assert.equal(ageOn(parseIsoDay(oldest)!, parseIsoDay(clock.toISOString().slice(0, 10))!), MAX_AGE_YEARS);
    }
  });
});

describe('date of birth: the worker schema and the widget follow the same rule (today, UTC)', () => {
  /** Runs `check` with today's bounds; again if the UTC day turned meanwhile. */
  function onStableDay(check: (bounds: ReturnType<typeof dateOfBirthBounds>) => void) {
    for (;;) {
      const day = new Date().toISOString().slice(0, 10);
      const bounds = dateOfBirthBounds();
      check(bounds);
      if (new Date().toISOString().slice(0, 10) === day) return;
    }
  }
  const body = (dateOfBirth: string) => ({
    name: { familyName: 'Lee' },
    dateOfBirth,
    phone: { code: '+61', number: '412345678' },
    consent: true,
  });

  it('accepts the oldest and the youngest allowed, refuses one day beyond each', () => {
    onStableDay(({ oldest, youngest }) => {
      const dayBefore = new Date(Date.parse(`${oldest}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
      const today = new Date().toISOString().slice(0, 10);
      for (const ok of [oldest, youngest]) {
        assert.equal(OnboardingLinkRequest.safeParse(body(ok)).success, true, ok);
        assert.equal(widgetAccepts(ok, new Date()), true, ok);
      }
      for (const bad of [dayBefore, today]) {
        const r = OnboardingLinkRequest.safeParse(body(bad));
        assert.equal(r.success, false, bad);
        assert.deepEqual(
          r.error.issues.map((i) => i.path.join('.')),
          ['dateOfBirth'],
        );
        assert.equal(widgetAccepts(bad, new Date()), false, bad);
      }
    });
  });
});

describe('date of birth typed as three fields (the widget): dayFromParts names the wrong part', () => {
  it('gives YYYY-MM-DD for a real day, with or without leading zeros and spaces', () => {
    assert.deepEqual(dayFromParts(' 7 ', '04', '1985'), { iso: '1985-04-07' });
    assert.deepEqual(dayFromParts('07', '4', '1985'), { iso: '1985-04-07' });
    assert.deepEqual(dayFromParts('29', '2', '2000'), { iso: '2000-02-29' }); // a leap year
  });

  it('names the day, the month or the year that is wrong', () => {
    const cases: [string, string, string, 'day' | 'month' | 'year'][] = [
      ['', '4', '1985', 'day'],
      ['0', '4', '1985', 'day'],
      ['32', '1', '1985', 'day'],
      ['31', '4', '1985', 'day'], // April has 30 days
      ['29', '2', '2001', 'day'], // not a leap year
      ['1.5', '4', '1985', 'day'],
      ['1', '', '1985', 'month'],
      ['1', '13', '1985', 'month'],
      ['1', '0', '1985', 'month'],
      ['1', '4', '85', 'year'],
      ['1', '4', '', 'year'],
      ['1', '4', '19855', 'year'],
      ['１', '4', '1985', 'day'], // full-width digits are not digits here
    ];
    for (const [d, m, y, wrong] of cases) assert.deepEqual(dayFromParts(d, m, y), { wrong }, `${d}/${m}/${y}`);
  });

  it('leaves "in the past, at most 120 years" to dateOfBirthProblem, which the worker applies too', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const r = dayFromParts('23', '11', '1905');
    assert.ok('iso' in r);
    assert.equal(dateOfBirthProblem(r.iso, now), 'too-old');
  });
});

describe('youngerThan: a partner’s minimum age, on a controlled clock', () => {
  // Clocks chosen for their edges (mid-year, 29 February, the last minute of a year); every birth date computed from them.
  const clocks = [new Date(Date.UTC(2031, 5, 15, 12)), new Date(Date.UTC(2032, 1, 29, 0, 0, 1)), new Date(Date.UTC(2033, 11, 31, 23, 59))];
  for (const now of clocks) {
    it(`on ${now.toISOString()}: 18 today is old enough, 18 tomorrow is not; no minimum refuses nobody`, () => {
      assert.equal(youngerThan(isoDayBefore(18, 0, now), 18, now), false);
      assert.equal(youngerThan(isoDayBefore(18, -1, now), 18, now), true);
      assert.equal(youngerThan(isoDayBefore(15, 30, now), undefined, now), false);
      assert.equal(youngerThan('not a date', 18, now), false);
    });
  }
  it('a 29 February birthday turns 18 on 1 March in a common year', () => {
    const clock = new Date(Date.UTC(2034, 2, 1, 12)); // a common year's 1 March
    const birth = leapDayBirth(18, clock); // the latest 29 February at least 18 years before: 2016-02-29
    assert.equal(youngerThan(birth, 18, new Date(clock.getTime() - 86_400_000)), true); // 28 February: still 17
    assert.equal(youngerThan(birth, 18, clock), false);
  });
});
