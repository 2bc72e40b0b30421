/**
 * Settings that failed open or were silently clamped (issue 40, "Settings
 * that fail open or silently"): each value outside its range is `500
 * MISCONFIGURED` naming the setting (never its value), on `/api/ruok`, on the
 * link route before any vendor call, and on `/v1`; docs/configuration.md
 * gives the same ranges.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Env } from '../../worker/lib/env';
import { MAX_SERVER_KEYS, RETRY_STEP_RANGE, SETTING_RANGES } from '../../worker/middleware/setting-ranges';
import { baseEnv, call, okVendor, person, startHarness, stopHarness, vendor, vendorRequests } from './harness';

before(startHarness);
after(stopHarness);
beforeEach(() => vendor(...okVendor));

const KEY = `kyc_sk_live_${'A'.repeat(43)}`;
const env = (settings: Partial<Env>): Env => ({ ...baseEnv, ...settings });

/** The issue's values, and a few more on either side of a range. */
const BAD: [keyof Env, string][] = [
  ['WEBHOOK_MAX_ATTEMPTS', '0'],
  ['WEBHOOK_RETRY_SCHEDULE', '60,120,abc'],
  ['WEBHOOK_RETRY_SCHEDULE', '60,-1'],
  ['WEBHOOK_TIMEOUT_MS', '0'],
  ['VERIFICATION_MAX_SECONDS', '-5'],
  ['KYC_TIMEOUT_MS', 'soon'],
  ['KYC_TIMEOUT_MS', '90000'],
  ['RESULT_POLL_SECONDS', '1'],
  ['RESULT_POLL_MAX_SECONDS', 'soon'],
  ['LINK_MAX_SECONDS', '1.5'],
  ['PARTNERS_CACHE_SECONDS', '301'],
  ['LIMIT_OPEN_PER_IP', '0'],
  ['PARTNER_SERVER_KEYS', 'garbage'],
  ['PARTNER_SERVER_KEYS', `${KEY},${KEY},${KEY}`],
  ['PARTNER_SERVER_KEYS', `kyc_sk_test_${'A'.repeat(43)}`],
];

describe('settings outside their range', () => {
  for (const [name, value] of BAD) {
    it(`${name}=${value} is 500 MISCONFIGURED naming ${name}, on ruok, the link route (no vendor call) and /v1`, async () => {
      const e = env({ [name]: value });
      vendorRequests.length = 0;
      for (const res of [
        await call('/api/ruok', {}, e),
        await call('/api/onboarding-link', { method: 'POST', json: person }, e),
        await call(
          '/v1/verifications',
          { method: 'POST', json: { customerRef: 'acct-1' }, headers: { Authorization: `Bearer ${KEY}` } },
          e,
        ),
      ]) {
        assert.equal(res.status, 500, res.text);
        assert.equal(res.json.errorCode, 'MISCONFIGURED');
        assert.ok(
          res.json.issues.some((i: { issueLocation: string }) => i.issueLocation === name),
          `${name} named: ${res.text}`,
        );
        assert.ok(!res.text.includes('garbage') && !res.text.includes(KEY), 'never the value');
      }
      assert.equal(vendorRequests.length, 0);
    });
  }

  it('the edges of every range, and unset or empty, are accepted', async () => {
    const good: Partial<Env> = { PARTNER_SERVER_KEYS: `${KEY}, kyc_sk_${'B'.repeat(43)}`, WEBHOOK_RETRY_SCHEDULE: '0, 86400' };
    for (const [name, [min, max]] of Object.entries(SETTING_RANGES)) {
      for (const value of [String(min), String(max), '', undefined]) {
        const settings = { ...good, [name]: value } as Partial<Env>;
        if (name === 'RESULT_POLL_SECONDS' || name === 'RESULT_POLL_MAX_SECONDS') {
          settings.RESULT_POLL_SECONDS = value === undefined || value === '' ? value : String(Math.min(Number(value), 3600));
          settings.RESULT_POLL_MAX_SECONDS = value === undefined || value === '' ? value : String(Math.max(Number(value), 5));
        }
        const res = await call('/api/ruok', {}, env(settings));
        assert.equal(res.status, 200, `${name}=${value}: ${res.text}`);
      }
    }
  });

  it('docs/configuration.md gives each range as the guard checks it', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8').split('## Valid ranges')[1]!;
    const fmt = (n: number) => n.toLocaleString('en-US').replaceAll(',', ' ');
    for (const [name, [min, max]] of Object.entries(SETTING_RANGES)) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${name}\``));
      assert.ok(row, `${name} has a row`);
      assert.ok(row.includes(`${fmt(min)}–${fmt(max)}`), `${name}'s row gives ${fmt(min)}–${fmt(max)}: ${row}`);
    }
    assert.match(doc, new RegExp(`WEBHOOK_RETRY_SCHEDULE\`[^\\n]*${RETRY_STEP_RANGE[0]}–${fmt(RETRY_STEP_RANGE[1])}`));
    assert.match(doc, new RegExp(`PARTNER_SERVER_KEYS\`[^\\n]*(one or two|at most ${MAX_SERVER_KEYS})`));
    assert.match(doc, /anything else is refused/i);
  });
});
