/**
 * The number settings and the server keys, checked as the configuration
 * guard checks the vendor's: a value outside its range is `500
 * MISCONFIGURED` naming the setting, never a silent clamp or a fall back to
 * the default (before, `WEBHOOK_MAX_ATTEMPTS=0` ran as 1,
 * `WEBHOOK_RETRY_SCHEDULE=60,120,abc` as the whole default, `WEBHOOK_TIMEOUT_MS=0`
 * as 100 ms, `VERIFICATION_MAX_SECONDS=-5` as 0, `KYC_TIMEOUT_MS=soon` as 8000,
 * and `PARTNER_SERVER_KEYS=garbage` answered every `/v1` call 401). Unset or
 * empty is the default. docs/configuration.md gives each range; a test checks
 * the two agree.
 */
import type { Issue } from '../lib/errors';
import { keyMode, SERVER_KEY } from '../server-api/keys';

/** Whole numbers, inclusive: each setting's valid range. */
export const SETTING_RANGES = {
  KYC_TIMEOUT_MS: [100, 60_000],
  RESULT_POLL_SECONDS: [5, 3600],
  RESULT_POLL_MAX_SECONDS: [5, 86_400],
  VERIFICATION_GRACE_SECONDS: [0, 86_400],
  LINK_MAX_SECONDS: [60, 7 * 86_400],
  VERIFICATION_MAX_SECONDS: [0, 7 * 86_400],
  WEBHOOK_TIMEOUT_MS: [100, 60_000],
  WEBHOOK_MAX_ATTEMPTS: [1, 100],
  PARTNERS_CACHE_SECONDS: [0, 300],
  LIMIT_SMS_PER_NUMBER_PER_DAY: [1, 1_000_000_000],
  LIMIT_OPEN_PER_IP: [1, 1_000_000_000],
  LIMIT_OPEN_PER_PARTNER: [1, 1_000_000_000],
} as const satisfies Record<string, readonly [number, number]>;

/** Each step of WEBHOOK_RETRY_SCHEDULE, seconds. */
export const RETRY_STEP_RANGE = [0, 86_400] as const;
/** Keys PARTNER_SERVER_KEYS may hold (a rotation's overlap). */
export const MAX_SERVER_KEYS = 2;

const WHOLE = /^\d+$/;

const inRange = (raw: string, [min, max]: readonly [number, number]) => WHOLE.test(raw) && Number(raw) >= min && Number(raw) <= max;

/**
 * What is wrong with the number settings and PARTNER_SERVER_KEYS (names and
 * ranges, never values); empty when nothing. `settings` are the raw values
 * (worker/config.ts calls this once per configuration: `Config.invalidSettings`).
 */
export function settingRangeProblems(settings: Readonly<Record<string, unknown>>, livemode: boolean): Issue[] {
  const issues: Issue[] = [];
  const add = (issueLocation: string, issue: string) => issues.push({ issue, issueLocation });
  const raw = (name: string) => (typeof settings[name] === 'string' ? settings[name].trim() : '');
  for (const [name, range] of Object.entries(SETTING_RANGES)) {
    const value = raw(name);
    if (value && !inRange(value, range)) add(name, `must be a whole number from ${range[0]} to ${range[1]}`);
  }
  const poll = raw('RESULT_POLL_SECONDS');
  const pollMax = raw('RESULT_POLL_MAX_SECONDS');
  if (WHOLE.test(poll) && WHOLE.test(pollMax) && Number(pollMax) < Number(poll))
    add('RESULT_POLL_MAX_SECONDS', 'must not be less than RESULT_POLL_SECONDS');
  const schedule = raw('WEBHOOK_RETRY_SCHEDULE');
  if (schedule && !schedule.split(',').every((step) => inRange(step.trim(), RETRY_STEP_RANGE)))
    add('WEBHOOK_RETRY_SCHEDULE', `must be a comma list of whole numbers of seconds from ${RETRY_STEP_RANGE[0]} to ${RETRY_STEP_RANGE[1]}`);
  const keys = raw('PARTNER_SERVER_KEYS')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (keys.length > MAX_SERVER_KEYS || keys.some((k) => !SERVER_KEY.test(k)))
    add(
      'PARTNER_SERVER_KEYS',
      `must be a comma list of one or two server keys (kyc_sk_${livemode ? 'live' : 'test'}_…, from npm run partners)`,
    );
  else if (keys.some((k) => keyMode(k) !== undefined && keyMode(k) !== (livemode ? 'live' : 'test')))
    add('PARTNER_SERVER_KEYS', livemode ? 'holds a test key on a live deployment' : 'holds a live key on a test deployment');
  return issues;
}
