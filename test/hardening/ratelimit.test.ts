/**
 * Rate limits in workerd, with the real bindings of wrangler.toml (RL_IP 60
 * per 60 s per client address on every /api route, RL_SMS 3 per 60 s per
 * destination number). The binding counts in fixed windows aligned to the
 * clock, so the assertions are "at most the limit per window touched" and
 * "the limit fires", never exact counts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import type { RunningWorker } from '../support/wrangler';
import { assertErrorObject, freshIp, pool, saveResults, startSnapshotWorker } from './support';
import { adultDateOfBirth } from '../support/dates';

const IP_LIMIT = 60;
const SMS_LIMIT = 3;
const PERIOD_S = 60;

let vendor: FakeVendor;
let worker: RunningWorker;

before(async () => {
  vendor = await startFakeVendor();
  worker = await startSnapshotWorker({
    vars: {
      KYC_BASE_URL: vendor.url,
      KYC_API_KEY: 'rl-key-123',
      KYC_CUSTOMER_ID: 'rl-customer',
      SESSION_SECRET: 'rl-session-secret-0987-xxxxxxxxx',
      KYC_TIMEOUT_MS: '2000',
    },
  });
});
after(async () => {
  await worker?.stop();
  await vendor?.close();
});

/** How many fixed windows of `PERIOD_S` the interval [from, to] touches. */
function windows(from: number, to: number): number {
  return Math.floor(to / 1000 / PERIOD_S) - Math.floor(from / 1000 / PERIOD_S) + 1;
}

interface Shot {
  status: number;
  retryAfter: string | null;
  text: string;
  headers: Headers;
}

async function shoot(path: string, init: RequestInit, ip: string): Promise<Shot> {
  const res = await fetch(worker.url + path, { ...init, headers: { ...(init.headers as Record<string, string>), 'CF-Connecting-IP': ip } });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text(), headers: res.headers };
}

function assertLimited(shot: Shot, context: string): void {
  const e = assertErrorObject(shot.text, shot.headers, context);
  assert.equal(e.errorCode, 'RATE_LIMITED', context);
  assert.match(shot.retryAfter ?? '', /^\d+$/, `${context}: Retry-After`);
  const s = Number(shot.retryAfter);
  assert.ok(s >= 1 && s <= PERIOD_S, `${context}: Retry-After ${s}`);
}

const person = (number: string, sendSMS: boolean) => ({
  name: { familyName: 'Lima' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number },
  consent: true,
  sendSMS,
});

const figures: Record<string, unknown> = {};

describe('rate limits in workerd', () => {
  const routes: [string, () => RequestInit, number][] = [
    // Invalid input still counts: the limit runs before validation.
    [
      '/api/onboarding-link',
      () => ({ method: 'POST', headers: { 'Content-Type': 'application/json', Origin: worker.url }, body: '{"bad":true}' }),
      400,
    ],
    [
      '/api/result',
      () => ({ method: 'POST', headers: { 'Content-Type': 'application/json', Origin: worker.url }, body: '{"session":"nope"}' }),
      401,
    ],
    ['/api/ruok', () => ({}), 200],
  ];
  for (const [path, init, normal] of routes) {
    it(`limits one client address on ${path} to at most ${IP_LIMIT} per window, then 429 with Retry-After`, async () => {
      const ip = freshIp(30);
      const sent = 150;
      const t0 = Date.now();
      const shots: Shot[] = [];
      await pool(Array.from({ length: sent }), 10, async () => void shots.push(await shoot(path, init(), ip)));
      const w = windows(t0, Date.now());
      const passed = shots.filter((s) => s.status !== 429);
      const limited = shots.filter((s) => s.status === 429);
      figures[path] = { sent, passed: passed.length, limited: limited.length, windows: w };
      assert.ok(passed.length <= IP_LIMIT * w, `${passed.length} passed in ${w} window(s)`);
      assert.ok(limited.length >= sent - IP_LIMIT * w, `${limited.length} limited`);
      assert.ok(
        passed.every((s) => s.status === normal),
        `the others got ${normal}`,
      );
      for (const s of limited.slice(0, 5)) assertLimited(s, path);
      // Another client is not affected.
      const other = await shoot(path, init(), freshIp(31));
      assert.equal(other.status, normal);
    });
  }

  it('counts an IPv6 client per /64, so rotating addresses inside it does not help', async () => {
    const prefix = `2001:db8:${(Date.now() & 0xfff).toString(16)}:7`;
    const sent = 150;
    const t0 = Date.now();
    const shots: Shot[] = [];
    await pool(
      Array.from({ length: sent }, (_, i) => i),
      10,
      async (i) => {
        shots.push(await shoot('/api/ruok', {}, `${prefix}:${((i * 2654435761) >>> 0).toString(16).slice(0, 4)}::${(i + 1).toString(16)}`));
      },
    );
    const w = windows(t0, Date.now());
    const passed = shots.filter((s) => s.status !== 429).length;
    figures.ipv6 = { sent, passed, windows: w };
    assert.ok(passed <= IP_LIMIT * w, `${passed} passed from one /64`);
    assertLimited(
      shots.find((s) => s.status === 429)!,
      'IPv6 /64',
    );
    assert.equal(
      (await shoot('/api/ruok', {}, `2001:db8:ffff:${(Date.now() & 0xfff).toString(16)}::1`)).status,
      200,
      'another /64 is not limited',
    );
  });

  it(`texts one number at most ${SMS_LIMIT} times per window, however it is written and from whichever address`, async () => {
    const digits = `4${String(10_000_000 + (Date.now() % 9_000_000)).padStart(8, '0')}`; // 41xxxxxxx: a valid AU mobile
    const spellings = [
      `0${digits}`,
      `+61${digits}`,
      digits,
      `0${digits.slice(0, 3)} ${digits.slice(3, 6)} ${digits.slice(6)}`,
      `(0${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`,
    ];
    vendor.requests.length = 0;
    const sent = 12;
    const t0 = Date.now();
    const shots: Shot[] = [];
    await pool(
      Array.from({ length: sent }, (_, i) => i),
      4,
      async (i) => {
        shots.push(
          await shoot(
            '/api/onboarding-link',
            {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', Origin: worker.url },
              body: JSON.stringify(person(spellings[i % spellings.length]!, true)),
            },
            freshIp(32),
          ),
        );
      },
    );
    const w = windows(t0, Date.now());
    const texts = vendor.requests.filter((q) => {
      const b = JSON.parse(q.body || '{}');
      return b.sendSMS === true && b.phoneNumber === digits;
    }).length;
    const limited = shots.filter((s) => s.status === 429);
    figures.sms = { sent, texts, limited: limited.length, windows: w };
    assert.ok(texts <= SMS_LIMIT * w, `${texts} texts in ${w} window(s)`);
    assert.ok(texts >= 1, 'the first texts went out');
    assert.ok(limited.length >= sent - SMS_LIMIT * w, `${limited.length} limited`);
    assert.ok(
      shots.every((s) => s.status === 200 || s.status === 429),
      shots.map((s) => s.status).join(','),
    );
    for (const s of limited.slice(0, 3)) assertLimited(s, 'SMS');
    assert.equal(vendor.requests.length, shots.filter((s) => s.status === 200).length, 'a limited request never reaches the vendor');

    // The same number without a text message, and another number with one, still work.
    const noSms = await shoot(
      '/api/onboarding-link',
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: worker.url },
        body: JSON.stringify(person(`0${digits}`, false)),
      },
      freshIp(32),
    );
    assert.equal(noSms.status, 200);
    const other = `4${String(Number(digits.slice(1)) + 1).padStart(8, '0')}`;
    const otherNumber = await shoot(
      '/api/onboarding-link',
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: worker.url },
        body: JSON.stringify(person(`0${other}`, true)),
      },
      freshIp(32),
    );
    assert.equal(otherNumber.status, 200);
    saveResults('rateLimits', {
      date: new Date().toISOString(),
      ipLimit: IP_LIMIT,
      smsLimit: SMS_LIMIT,
      periodSeconds: PERIOD_S,
      ...figures,
    });
  });
});
