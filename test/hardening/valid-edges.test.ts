/**
 * The other side of the fuzz: unusual but valid input must work. Names in many
 * scripts, with emoji, combining marks, zero-width joiners and RTL text (no
 * overrides), exactly at the length limits, one-name people, numbers written in
 * every way people type them for every default SMS country, return URLs with
 * queries and fragments. In workerd, against the recording fake vendor (which
 * must receive the names intact) and against the built-in sandbox, the
 * default vendor (link and result must both work).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parsePhoneNumberFromString } from 'libphonenumber-js/mobile';
import { leapDayBirth, newYearsDay, newYearsEve, oldestDateOfBirth } from '../support/dates';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import type { RunningWorker } from '../support/wrangler';
import { freshIp, pool, prng, seedFromEnv, startSnapshotWorker, type Prng } from './support';

const PARTNER = 'http://partner.example';

let vendor: FakeVendor;
let worker: RunningWorker;
let sandboxWorker: RunningWorker;

before(async () => {
  vendor = await startFakeVendor();
  [worker, sandboxWorker] = await Promise.all([
    startSnapshotWorker({
      vars: {
        KYC_BASE_URL: vendor.url,
        KYC_API_KEY: 'edge-key-1',
        KYC_CUSTOMER_ID: 'edge-customer',
        SESSION_SECRET: 'edge-session-secret-77-xxxxxxxxx',
        ALLOWED_ORIGINS: PARTNER,
        KYC_TIMEOUT_MS: '3000',
      },
    }),
    startSnapshotWorker({ vars: { ALLOWED_ORIGINS: PARTNER } }),
  ]);
});
after(async () => {
  await Promise.all([worker?.stop(), sandboxWorker?.stop()]);
  await vendor?.close();
});

const NAMES = [
  'Nguyễn Thị Minh Khai',
  'Zoë Ðorđević',
  '李小龍',
  '김민준',
  'محمد بن سلمان', // Arabic, RTL without overrides
  'ישראל ישראלי',
  'Ngũgĩ wa Thiong\u2019o',
  'O\u2019Brien-Smythe',
  'José\u0301 María', // combining acute
  'Ævar Þór',
  'Renée 👩 Emoji', // an emoji (a joined emoji sequence's ZWJ is refused in names: issue 28)
  'ک\u200cخواهم', // zero-width non-joiner where Persian needs it
  'क्\u200dष', // zero-width joiner where Devanagari needs it
  'Sipho\u200E Ndlovu', // left-to-right mark (allowed)
  'Ŋgë Ʒaba',
  'Σωκράτης Παπαδόπουλος',
  'Мария-Ивановна',
  'अनुष्का शर्मा',
  'ธนพล',
];

/**
 * Valid mobile numbers in every default SMS country, written as people type
 * them; each request gets its own number (RL_SMS allows 3 texts per number).
 */
const FORMATS: [string, (d: string) => string][] = [
  ['+61', (d) => `04${d.slice(0, 2)} ${d.slice(2, 5)} ${d.slice(5, 8)}`],
  ['+61', (d) => `+61 4${d.slice(0, 2)} ${d.slice(2, 5)} ${d.slice(5, 8)}`],
  ['+61', (d) => `(04) ${d.slice(0, 4)}-${d.slice(4, 8)}`],
  ['+61', (d) => `4${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}`],
  ['+64', (d) => `021 ${d.slice(1, 4)} ${d.slice(4, 8)}`],
  ['+44', (d) => `07400 ${d.slice(2, 8)}`],
  ['+353', (d) => `085 ${d.slice(1, 4)} ${d.slice(4, 8)}`],
  ['+1', (d) => `(201) 5${d.slice(2, 4)}-${d.slice(4, 8)}`],
  ['+1', (d) => `416-5${d.slice(2, 4)}-${d.slice(4, 8)}`],
];
let numberCounter = 0;
function uniqueNumber(i: number): [string, string] {
  for (;;) {
    const [code, write] = FORMATS[i % FORMATS.length]!;
    const digits = String(10_000_000 + ((Date.now() + numberCounter++ * 7919) % 89_999_999)).slice(-8);
    const number = write(digits);
    const parsed = parsePhoneNumberFromString(
      number.startsWith('+') ? number.replace(/[^\d+]/g, '') : number.replace(/\D/g, ''),
      number.startsWith('+') ? undefined : { defaultCallingCode: code.slice(1) },
    );
    if (parsed?.isValid() && ['AU', 'NZ', 'GB', 'IE', 'US', 'CA'].includes(parsed.country ?? '')) return [code, number];
  }
}

const points = (s: string) => [...s].length;
/** Exactly `n` code points, ending in a letter (trailing spaces would be trimmed). */
function exactly(n: number, r: Prng): string {
  const pieces = ['a', 'é', '李', '👩', 'ß', 'ع'];
  let s = '';
  while (points(s) < n) s += r.pick(pieces);
  return s;
}

function body(r: Prng, i: number) {
  const [code, number] = uniqueNumber(i);
  const oneName = r.chance(0.15);
  const b: Record<string, unknown> = {
    name: oneName
      ? { familyName: r.pick(NAMES) }
      : {
          givenName: r.chance(0.1) ? exactly(100, r) : r.pick(NAMES),
          ...(r.chance(0.3) ? { middleName: r.pick(NAMES) } : {}),
          familyName: r.chance(0.1) ? exactly(100, r) : `  ${r.pick(NAMES)}  `,
        },
    // Derived from today (workerd keeps the real clock): the oldest person the
    // rule accepts (120 today), a leap-day birthday, both ends of a year.
    dateOfBirth: r.pick([oldestDateOfBirth(), leapDayBirth(), newYearsEve(), newYearsDay()]),
    phone: { code, number },
    consent: true,
    sendSMS: r.chance(0.5),
  };
  if (r.chance(0.3)) b.customerRef = r.chance(0.5) ? exactly(100, r) : `ref/${i}?x=<b>&y="z"`;
  if (r.chance(0.3)) b.returnUrl = `${PARTNER}/onboard/é?step=${i}&q=a%20b#frag`;
  return b;
}

async function link(w: RunningWorker, b: unknown) {
  const res = await fetch(`${w.url}/api/onboarding-link`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json; charset=utf-8', Origin: PARTNER, 'CF-Connecting-IP': freshIp(60) },
    body: JSON.stringify(b),
  });
  return { status: res.status, text: await res.text() };
}

const tidy = (s: string) => s.trim().replace(/\s+/g, ' ');

describe('unusual but valid input, in workerd', () => {
  it('reaches the fake vendor with every name intact and answers 200', async () => {
    const r = prng(seedFromEnv(77));
    const bodies = Array.from({ length: 180 }, (_, i) => body(r, i));
    vendor.requests.length = 0;
    const bad: string[] = [];
    await pool(bodies, 6, async (b) => {
      const a = await link(worker, b);
      if (a.status !== 200) bad.push(`${a.status} ${a.text.slice(0, 200)} for ${JSON.stringify(b).slice(0, 200)}`);
    });
    assert.deepEqual(bad.slice(0, 5), [], `${bad.length} refused`);
    const sent = vendor.requests.map((q) => JSON.parse(q.body).entity.name as Record<string, string>);
    assert.equal(sent.length, bodies.length);
    const expected = new Set(
      bodies.map((b) => JSON.stringify(Object.fromEntries(Object.entries(b.name as Record<string, string>).map(([k, v]) => [k, tidy(v)])))),
    );
    for (const s of sent) assert.ok(expected.has(JSON.stringify(s)), `the vendor got a name nobody sent: ${JSON.stringify(s)}`);
  });

  it('works end to end against the built-in sandbox: link, then result', async () => {
    const r = prng(seedFromEnv(78));
    const bad: string[] = [];
    await pool(
      Array.from({ length: 60 }, (_, i) => body(r, i)),
      4,
      async (b) => {
        const a = await link(sandboxWorker, b);
        if (a.status !== 200) return void bad.push(`link ${a.status} ${a.text.slice(0, 200)} for ${JSON.stringify(b).slice(0, 160)}`);
        const { session } = JSON.parse(a.text) as { session: string };
        const res = await fetch(`${sandboxWorker.url}/api/result`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Origin: PARTNER, 'CF-Connecting-IP': freshIp(60) },
          body: JSON.stringify({ session }),
        });
        const text = await res.text();
        if (res.status !== 200 || typeof JSON.parse(text).checkStatus !== 'string') bad.push(`result ${res.status} ${text.slice(0, 200)}`);
      },
    );
    assert.deepEqual(bad.slice(0, 5), [], `${bad.length} failed`);
  });
});
