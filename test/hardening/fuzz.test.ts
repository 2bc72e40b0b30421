/**
 * Fuzz: the real worker in workerd (wrangler dev) in front of a recording fake
 * vendor receives thousands of malformed or hostile requests from a seeded
 * generator. Every request is invalid by construction, and the generator knows
 * which answer the documented order of checks gives it (origin 403 → body size
 * 413 → content type 415 → JSON 400 → fields 400 → session 401). Asserted per
 * answer: that status (so never a 5xx), a well-formed ErrorObject, no submitted
 * value and no credential repeated; and over the run: not one vendor call.
 *
 * Reproduce a failure with HARDENING_SEED=<seed printed in the message>.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sign } from 'hono/jwt';
import type { FakeVendor } from '../support/fake-vendor';
import type { RunningWorker } from '../support/wrangler';
import {
  assertErrorObject,
  assertNoLeak,
  freshIp,
  headerText,
  percentile,
  pool,
  prng,
  saveResults,
  seedFromEnv,
  startVendorAndWorker,
  stopVendorAndWorker,
  stringLeaves,
  type Prng,
} from './support';

const SEED = seedFromEnv(20261121);
/** How many requests, and the wall-clock bound that stops the run early. */
const COUNT = Number(process.env.HARDENING_FUZZ_COUNT ?? 5000);
const TIME_BOUND_MS = 60_000;
const CONCURRENCY = 8;

const PARTNER = 'http://partner.example';
const API_KEY = 'fuzz-api-key-Qw3rTy9uIoP';
const SECRET = 'fuzz-session-secret-Lk8jHg6fDs4a';
const CUSTOMER = 'fuzz-customer-7731';
const CHILD = 'fuzz-child-5519';
const CREDENTIALS = [API_KEY, SECRET, CUSTOMER, CHILD];
const MAX_BODY = 64 * 1024;

let vendor: FakeVendor;
let worker: RunningWorker;
let session: string;

before(async () => {
  ({ vendor, worker } = await startVendorAndWorker({
    KYC_API_KEY: API_KEY,
    KYC_CUSTOMER_ID: CUSTOMER,
    KYC_CUSTOMER_CHILD_ID: CHILD,
    SESSION_SECRET: SECRET,
    ALLOWED_ORIGINS: PARTNER,
    KYC_TIMEOUT_MS: '2000',
  }));
});
after(() => stopVendorAndWorker({ vendor, worker }));

// ---------------------------------------------------------------- generator

/** The order of the worker's checks; the earliest failing one decides the answer. */
const enum Stage {
  Origin = 0,
  Size = 1,
  ContentType = 2,
  Json = 3,
  Fields = 4,
  Session = 5,
  IdempotencyKey = 6,
}
const STATUS: Record<Stage, number> = { 0: 403, 1: 413, 2: 415, 3: 400, 4: 400, 5: 401, 6: 400 };
const CODES: Record<Stage, string[]> = {
  0: ['ORIGIN_NOT_ALLOWED'],
  1: ['PAYLOAD_TOO_LARGE'],
  2: ['UNSUPPORTED_MEDIA_TYPE'],
  3: ['INVALID_JSON'],
  4: ['VALIDATION_FAILED'],
  5: ['SESSION_INVALID'],
  6: ['VALIDATION_FAILED'],
};

interface Case {
  route: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** What the worker must answer. */
  status: number[];
  codes?: string[];
  /** Submitted values that must not come back. */
  values: string[];
  /** The mutations applied, for the failure message. */
  what: string[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

/** Characters a name, a reference or a token may not carry (zero-width joiners and bidi marks are allowed). */
const FORBIDDEN = [
  '\u0000',
  '\u0001',
  '\u0008',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\udc00\ud800',
];
/** Unicode that is fine in a name: used as padding for the too-long cases. */
const UNICODE_SOUP = [
  'é',
  'ß',
  'Ø',
  '李',
  '김',
  'Ж',
  'ع',
  'א',
  '👩‍👩‍👧',
  '🏳️‍🌈',
  'e\u0301',
  '\u200d',
  '\ufeff',
  'ｱ',
  '𝔘',
  'ǅ',
  'İ',
  'ﬀ',
  '\u00a0',
];
const HOSTILE = [
  '<script>alert(1)</script>',
  "' OR '1'='1' --",
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '../../../../etc/passwd',
  '%00%0d%0aSet-Cookie: a=b',
  '\r\nX-Injected: 1',
  '%s%s%s%n',
  'javascript:alert(1)',
  'data:text/html,<b>x</b>',
  '０４１２３４５６７８', // full-width digits
  '٠٤١٢٣٤٥٦٧٨', // Arabic-Indic digits
  '\u202e8765432140',
  'NaN',
  '-1',
  '1e309',
];
const UNKNOWN_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isAdmin',
  'role',
  '',
  ' ',
  'name ',
  'Consent',
  '💥',
  'a'.repeat(300),
  '\u0000',
  'entityId',
  'api_key',
  'X-Service-Channel',
];

function hostileString(r: Prng, canary: string): string {
  const base = r.pick(HOSTILE);
  return r.chance(0.5) ? `${base}${canary}` : base;
}

function hostileNonString(r: Prng, depth = 0): Json {
  const choice = r.int(0, depth > 2 ? 6 : 9);
  switch (choice) {
    case 0:
      return r.pick([0, -1, 1.5, 1e308, -0, 2 ** 53 + 1]);
    case 1:
      return r.pick([true, false]);
    case 2:
      return null;
    case 3:
      return [];
    case 4:
      return {};
    case 5:
      return [r.int(0, 9), 'x', null];
    case 6:
      return { a: 1 };
    case 7:
      return deepNest(r.int(50, 3000), r.chance(0.5));
    case 8: {
      const o: Obj = {};
      Object.defineProperty(o, '__proto__', {
        value: { polluted: true, isAdmin: true },
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return o;
    }
    default:
      return { constructor: { prototype: { polluted: true } } };
  }
}

function deepNest(depth: number, arrays: boolean): Json {
  let v: Json = 1;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
}

function getParent(body: Obj, path: string[]): Obj | undefined {
  let o: Json = body;
  for (const p of path.slice(0, -1)) {
    if (!o || typeof o !== 'object' || Array.isArray(o)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(o, p) || !o[p] || typeof o[p] !== 'object' || Array.isArray(o[p])) o[p] = {};
    o = o[p];
  }
  return o && typeof o === 'object' && !Array.isArray(o) ? o : undefined;
}
function setPath(body: Obj, path: string[], value: Json): void {
  const parent = getParent(body, path);
  if (parent) parent[path[path.length - 1]!] = value;
}
function deletePath(body: Obj, path: string[]): void {
  const parent = getParent(body, path);
  if (parent) delete parent[path[path.length - 1]!];
}

/** A valid AU mobile number in one of the ways people type it. */
function mobile(r: Prng): string {
  const digits = `4${r.pick([0, 1, 2, 3, 6])}${String(r.int(0, 9_999_999)).padStart(7, '0')}`;
  return r.pick([`0${digits}`, `0${digits.slice(0, 3)} ${digits.slice(3, 6)} ${digits.slice(6)}`, digits]);
}

function validLink(r: Prng, canary: string): Obj {
  const body: Obj = {
    name: { givenName: `Zoë ${canary}`, familyName: `Nguyễn-${canary}` },
    dateOfBirth: `19${r.int(40, 99)}-0${r.int(1, 9)}-1${r.int(0, 9)}`,
    phone: { code: '+61', number: mobile(r) },
    consent: true,
  };
  if (r.chance(0.3)) (body.name as Obj).middleName = `Thị ${canary}`;
  if (r.chance(0.4)) body.sendSMS = r.chance(0.5);
  if (r.chance(0.4)) body.customerRef = `ref-${canary}`;
  if (r.chance(0.4)) body.returnUrl = `${PARTNER}/onboard?c=${canary}`;
  return body;
}

interface FieldMutation {
  stage: Stage;
  what: string;
  apply: (body: Obj, r: Prng, canary: string) => void;
}

const LINK_REQUIRED = [['name'], ['name', 'familyName'], ['dateOfBirth'], ['phone'], ['phone', 'code'], ['phone', 'number'], ['consent']];
const LINK_STRINGS = [
  ['name', 'givenName'],
  ['name', 'middleName'],
  ['name', 'familyName'],
  ['dateOfBirth'],
  ['phone', 'code'],
  ['phone', 'number'],
  ['customerRef'],
  ['returnUrl'],
  ['turnstileToken'],
];
const LINK_LIMITS: [string[], number][] = [
  [['name', 'givenName'], 100],
  [['name', 'middleName'], 100],
  [['name', 'familyName'], 100],
  [['phone', 'number'], 32],
  [['customerRef'], 100],
  [['returnUrl'], 2048],
  [['turnstileToken'], 2048],
];
const FREE_TEXT = [['name', 'givenName'], ['name', 'middleName'], ['name', 'familyName'], ['customerRef']];

/** Longer than `min` characters, counted as the worker counts them: in code points. */
function longString(r: Prng, min: number): string {
  const target = min + r.int(1, Math.min(20_000, min * 3));
  let s = '';
  let points = 0;
  while (points < target) {
    const piece = (r.chance(0.5) ? r.pick(UNICODE_SOUP) : r.alnum(r.int(1, 8))).replace(/\s/g, 'x');
    s += piece;
    points += [...piece].length;
  }
  return s;
}

const linkMutations: FieldMutation[] = [
  { stage: Stage.Fields, what: 'missing required field', apply: (b, r) => deletePath(b, r.pick(LINK_REQUIRED)) },
  {
    stage: Stage.Fields,
    what: 'wrong type',
    apply: (b, r) => {
      const path = r.pick([...LINK_STRINGS, ['sendSMS'], ['consent'], ['name'], ['phone']]);
      let v = hostileNonString(r);
      if (path[0] === 'sendSMS' && typeof v === 'boolean') v = String(v);
      if (path[0] === 'consent' && v === true) v = 'true';
      setPath(b, path, v);
    },
  },
  {
    stage: Stage.Fields,
    what: 'too long',
    apply: (b, r) => {
      const [path, max] = r.pick(LINK_LIMITS);
      setPath(b, path, longString(r, max));
    },
  },
  {
    stage: Stage.Fields,
    what: 'forbidden character in free text',
    apply: (b, r, canary) => {
      const path = r.pick(FREE_TEXT);
      const bad = r.pick(FORBIDDEN);
      const text = `Ana${r.chance(0.5) ? bad : ''}${canary}${bad}Lima`;
      setPath(b, path, text);
    },
  },
  {
    stage: Stage.Fields,
    what: 'hostile value in a formatted field',
    apply: (b, r, canary) =>
      setPath(b, r.pick([['dateOfBirth'], ['phone', 'code'], ['phone', 'number'], ['returnUrl']]), hostileString(r, canary)),
  },
  {
    stage: Stage.Fields,
    what: 'impossible date of birth',
    apply: (b, r) =>
      setPath(
        b,
        ['dateOfBirth'],
        r.pick([
          '2023-02-30',
          '1990-13-01',
          '1990-00-10',
          '1990-5-6',
          '3000-01-01',
          '1800-01-01',
          '1990-01-01T00:00:00Z',
          '19900101',
          ' 1990-01-01x',
          '',
          '２０００-０１-０１',
          '1990-02-29',
        ]),
      ),
  },
  {
    stage: Stage.Fields,
    what: 'consent not true',
    apply: (b, r) => setPath(b, ['consent'], r.pick([false, 'true', 1, 'yes', null, [true], { value: true }] as Json[])),
  },
  {
    stage: Stage.Fields,
    what: 'bad country code',
    apply: (b, r) =>
      setPath(b, ['phone', 'code'], r.pick(['61', '+0', '+', '+12345', '++61', '+6 1', '+61\u0000', '+٦١', '+-61', '0061', ''])),
  },
  {
    stage: Stage.Fields,
    what: 'not a mobile number',
    apply: (b, r) => {
      const [code, number] = r.pick([
        ['+61', '1900 123 456'], // AU premium rate
        ['+61', '1300 123 456'], // AU shared cost
        ['+61', '1800 123 456'], // AU toll free
        ['+61', '02 9999 9999'], // AU fixed line
        ['+44', '909 876 5432'], // GB premium rate
        ['+44', '020 7946 0000'], // GB fixed line
        ['+1', '900 555 0199'], // US premium rate
        ['+61', '0412'], // too short
        ['+61', '04123456789012345678901'], // too long
        ['+61', 'O412 345 678'], // a letter O
        ['+61', '+44 7700 900123'], // another country's number under +61
        ['+61', '0412-345-678 ext 9'],
      ]);
      setPath(b, ['phone'], { code, number });
    },
  },
  {
    stage: Stage.Fields,
    what: 'text to a country not on the list',
    apply: (b, r) => {
      setPath(
        b,
        ['phone'],
        r.pick([
          { code: '+33', number: '6 12 34 56 78' },
          { code: '+7', number: '912 345 67 89' },
          { code: '+234', number: '803 123 4567' },
        ]),
      );
      setPath(b, ['sendSMS'], true);
    },
  },
  {
    stage: Stage.Fields,
    what: 'return URL on another origin',
    apply: (b, r, canary) =>
      setPath(
        b,
        ['returnUrl'],
        r.pick([
          `http://evil.example/${canary}`,
          `https://partner.example/${canary}`,
          `http://partner.example:8080/${canary}`,
          `//evil.example/${canary}`,
          `/relative/${canary}`,
          `http://partner.example.evil.example/${canary}`,
          `ftp://partner.example/${canary}`,
          `http://[::1]/${canary}`,
        ]),
      ),
  },
  {
    stage: Stage.Fields,
    what: 'blank required text',
    apply: (b, r) =>
      r.chance(0.5)
        ? setPath(b, ['name', 'familyName'], r.pick(['', '   ', '\t\n', '\u00a0\u3000']))
        : setPath(b, ['customerRef'], r.pick(['', '  '])),
  },
  {
    stage: Stage.Fields,
    what: 'unknown key',
    apply: (b, r) => {
      const where = r.pick(['', 'name', 'phone']);
      let obj: Obj = b;
      if (where) {
        const v = b[where];
        if (!v || typeof v !== 'object' || Array.isArray(v)) b[where] = {};
        obj = b[where] as Obj;
      }
      const key = r.pick(UNKNOWN_KEYS);
      Object.defineProperty(obj, key, {
        value: r.chance(0.5) ? hostileNonString(r) : 'x',
        enumerable: true,
        writable: true,
        configurable: true,
      });
    },
  },
];

/** Whole bodies that are JSON objects, so the field checks refuse them. */
const FIELD_LEVEL_BODIES = ['duplicate key', '__proto__ key in JSON text', 'deeply nested object body'];

/** Whole-body problems: the body is replaced, so field problems no longer matter. */
function brokenBody(r: Prng, validText: string): { body: string | Uint8Array; what: string } {
  switch (r.int(0, 9)) {
    case 0:
      return { body: validText.slice(0, r.int(0, validText.length - 1)), what: 'truncated JSON' };
    case 1:
      return {
        body: r.pick(['null', '[]', '[{}]', '"x"', '123', 'true', '1e999', '[' + validText + ']']),
        what: 'JSON that is not an object',
      };
    case 2:
      return { body: Uint8Array.from({ length: r.int(1, 4000) }, () => r.int(0, 255)), what: 'random bytes' };
    case 3: {
      // Valid JSON syntax around bytes that are not UTF-8 inside a name.
      const bad = r.pick([[0xff], [0xfe, 0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]]);
      const at = validText.indexOf('Nguy') + 4;
      const enc = new TextEncoder();
      return {
        body: new Uint8Array([...enc.encode(validText.slice(0, at)), ...bad, ...enc.encode(validText.slice(at))]),
        what: 'invalid UTF-8',
      };
    }
    case 4: {
      const n = r.int(1000, 9000);
      return r.chance(0.5)
        ? { body: '['.repeat(n) + ']'.repeat(n), what: 'deeply nested array body' }
        : { body: '{"a":'.repeat(n) + '1' + '}'.repeat(n), what: 'deeply nested object body' };
    }
    case 5:
      return { body: '', what: 'empty body' };
    case 6:
      return {
        body: r.pick([
          validText.replace(/"/g, "'"),
          validText.replace(/}$/, ',}'),
          validText.replace(/^{/, '{/*c*/'),
          validText.replace(/:("[^"]*"|true|false)/, ':NaN'),
          validText + validText,
          validText + 'x',
        ]),
        what: 'almost JSON',
      };
    case 7:
      return { body: '\ufeff' + validText.slice(0, r.int(1, validText.length - 1)), what: 'BOM and truncated JSON' };
    case 8:
      // Duplicate key: the last one wins, and it is invalid.
      return { body: validText.replace(/}$/, ',"consent":false}'), what: 'duplicate key' };
    default:
      return { body: validText.replace(/}$/, ',"__proto__":{"isAdmin":true,"polluted":true}}'), what: '__proto__ key in JSON text' };
  }
}

function headerMutation(r: Prng, c: { headers: Record<string, string>; stages: Stage[]; what: string[] }): void {
  switch (r.int(0, 2)) {
    case 0:
      c.headers.Origin = r.pick([
        'null',
        'http://evil.example',
        'https://partner.example',
        'http://partner.example:8443',
        'http://partner.example.evil.example',
        'javascript:alert(1)',
        'file://',
        'x',
        '*',
      ]);
      if (r.chance(0.2)) delete c.headers.Origin;
      c.stages.push(Stage.Origin);
      c.what.push('disallowed origin');
      break;
    case 1: {
      const type = r.pick([
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonp',
        'application/json-patch+json',
        'text/json',
        'application/xml',
        'json',
        '',
      ]);
      if (type) c.headers['Content-Type'] = type;
      else delete c.headers['Content-Type'];
      c.stages.push(Stage.ContentType);
      c.what.push(`content type ${JSON.stringify(type)}`);
      break;
    }
    default:
      c.headers['Idempotency-Key'] = r.pick([
        'short',
        'k'.repeat(129),
        'key with spaces 123',
        'key/with/slashes',
        'key\ttab12345',
        '',
        'ключ-ключ-ключ'.replace(/[^\x20-\x7e]/g, '?'),
        '<script>1</script>',
      ]);
      c.stages.push(Stage.IdempotencyKey);
      c.what.push('bad Idempotency-Key');
  }
}

function pad(body: Obj, r: Prng): void {
  body.customerRef = 'p'.repeat(MAX_BODY + r.int(1, 100_000));
}

function linkCase(r: Prng, canary: string): Case {
  const body = validLink(r, canary);
  const c = {
    headers: { 'Content-Type': 'application/json', Origin: PARTNER } as Record<string, string>,
    stages: [] as Stage[],
    what: [] as string[],
  };
  let raw: string | Uint8Array;
  const roll = r.next();
  if (roll < 0.7) {
    for (let i = r.int(1, 3); i > 0; i--) {
      const m = r.pick(linkMutations);
      m.apply(body, r, canary);
      c.stages.push(m.stage);
      c.what.push(m.what);
    }
    raw = JSON.stringify(body);
  } else if (roll < 0.88) {
    const broken = brokenBody(r, JSON.stringify(body));
    raw = broken.body;
    c.stages.push(FIELD_LEVEL_BODIES.includes(broken.what) ? Stage.Fields : Stage.Json);
    c.what.push(broken.what);
  } else if (roll < 0.93) {
    pad(body, r);
    raw = JSON.stringify(body);
    c.stages.push(Stage.Size);
    c.what.push('body over 64 KB');
  } else {
    raw = JSON.stringify(body);
  }
  // Header problems on top (or alone, for the valid bodies above).
  if (!c.stages.length || r.chance(0.25)) headerMutation(r, c);
  return finish('/api/onboarding-link', raw, body, c);
}

function finish(
  route: string,
  raw: string | Uint8Array,
  body: Obj,
  c: { headers: Record<string, string>; stages: Stage[]; what: string[] },
): Case {
  const bytes = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.byteLength;
  if (bytes > MAX_BODY && !c.stages.includes(Stage.Size)) {
    c.stages.push(Stage.Size);
    c.what.push('body over 64 KB');
  }
  // The earliest stage that refuses: a const enum's members are plain numbers.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
  const first = Math.min(...c.stages) as Stage;
  return {
    route,
    method: 'POST',
    headers: c.headers,
    body: raw,
    status: [STATUS[first]],
    // A text to a country off SMS_ALLOWED_COUNTRIES is its own 400, SMS_NOT_ALLOWED, unless the
    // schema refused something first.
    codes:
      first === Stage.Fields && c.what.includes('text to a country not on the list') ? [...CODES[first], 'SMS_NOT_ALLOWED'] : CODES[first],
    values: stringLeaves(body).filter((v) => v.length >= 5),
    what: c.what,
  };
}

async function forge(payload: Record<string, unknown>, secret = SECRET, alg: 'HS256' | 'HS512' = 'HS256'): Promise<string> {
  return sign(payload, secret, alg);
}

/** Session tokens that must all be refused with 401. */
async function badSessions(): Promise<string[]> {
  const now = Math.floor(Date.now() / 1000);
  const good = { sub: 'e-1', org: PARTNER, iat: now, exp: now + 3600 };
  const [h, p, s] = session.split('.');
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return [
    await forge(good, 'not-the-secret-at-all-123456'),
    await forge({ ...good, exp: now - 10 }),
    await forge({ ...good, sub: 42 }),
    await forge({ org: PARTNER, iat: now, exp: now + 3600 }),
    await forge({ sub: 'e-1', iat: now, exp: now + 3600 }),
    await forge(good, SECRET, 'HS512'),
    `${b64({ alg: 'none', typ: 'JWT' })}.${b64(good)}.`,
    `${b64({ alg: 'none', typ: 'JWT' })}.${b64(good)}`,
    `${h}.${b64({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'someone-else' })}.${s}`,
    `${h}.${p}.`,
    `${h}.${p}`,
    `${h}.${p}.${s!.slice(0, -2)}${s!.endsWith('AA') ? 'AB' : 'AA'}`,
    session.slice(0, -1),
    session + 'x',
    '',
    'null',
    'a.b.c',
    '....',
    'x'.repeat(4096),
  ];
}

let sessions: string[] = [];

function resultCase(r: Prng, canary: string): Case {
  const body: Obj = { session };
  if (r.chance(0.4)) body.checkId = `chk-${canary}`;
  if (r.chance(0.4)) body.token = `tok-${canary}`;
  const c = {
    headers: { 'Content-Type': 'application/json', Origin: PARTNER } as Record<string, string>,
    stages: [] as Stage[],
    what: [] as string[],
  };
  let raw: string | Uint8Array;
  const roll = r.next();
  if (roll < 0.35) {
    if (r.chance(0.15)) delete body.session;
    else body.session = r.pick(sessions);
    c.stages.push(Stage.Session);
    c.what.push('bad session');
    if (r.chance(0.3)) {
      body.checkId = `${canary}-${'c'.repeat(r.int(0, 150))}`; // valid, but sent along
    }
  } else if (roll < 0.75) {
    switch (r.int(0, 4)) {
      case 0:
        setPath(body, [r.pick(['session', 'checkId', 'token'])], hostileNonString(r));
        c.what.push('wrong type');
        break;
      case 1: {
        const [path, max] = r.pick([
          [['session'], 4096],
          [['checkId'], 200],
          [['token'], 2048],
        ] as [string[], number][]);
        setPath(body, path, longString(r, max));
        c.what.push('too long');
        break;
      }
      case 2:
        setPath(body, [r.pick(['checkId', 'token'])], `${canary}${r.pick(FORBIDDEN)}x`);
        c.what.push('forbidden character');
        break;
      case 3:
        setPath(body, [r.pick(['checkId', 'token'])], r.pick(['', '   ', '\n']));
        c.what.push('blank');
        break;
      default:
        Object.defineProperty(body, r.pick(UNKNOWN_KEYS), {
          value: hostileNonString(r),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        c.what.push('unknown key');
    }
    c.stages.push(Stage.Fields);
  } else if (roll < 0.92) {
    const broken = brokenBody(r, JSON.stringify({ session, checkId: `Nguy${canary}` }));
    raw = broken.body;
    c.stages.push(FIELD_LEVEL_BODIES.includes(broken.what) ? Stage.Fields : Stage.Json);
    c.what.push(broken.what);
    if (r.chance(0.25)) headerMutation(r, c);
    if (c.stages.includes(Stage.IdempotencyKey)) {
      // /api/result ignores the header: not an error there.
      c.stages = c.stages.filter((s) => s !== Stage.IdempotencyKey);
      c.what.pop();
    }
    return finish('/api/result', raw, body, c);
  } else {
    body.token = 't'.repeat(MAX_BODY + r.int(1, 50_000));
    c.stages.push(Stage.Size);
    c.what.push('body over 64 KB');
  }
  if (r.chance(0.25)) {
    headerMutation(r, c);
    if (c.stages.includes(Stage.IdempotencyKey)) {
      c.stages = c.stages.filter((s) => s !== Stage.IdempotencyKey);
      c.what.pop();
    }
  }
  raw = JSON.stringify(body);
  return finish('/api/result', raw, body, c);
}

const ROUTES = ['/api/onboarding-link', '/api/result', '/api/ruok'];

function oddCase(r: Prng, canary: string): Case {
  const route = r.pick(ROUTES);
  const methods =
    route === '/api/ruok'
      ? ['POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'PURGE', 'SEARCH', 'MKCOL']
      : ['GET', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'PURGE', 'SEARCH', 'MKCOL'];
  const method = r.pick(methods);
  const headers: Record<string, string> = { Origin: PARTNER, 'Content-Type': 'application/json' };
  const body = method === 'GET' ? undefined : JSON.stringify({ x: canary });
  return { route, method, headers, body, status: [405], codes: ['METHOD_NOT_ALLOWED'], values: [canary], what: [`${method} ${route}`] };
}

function ruokCase(r: Prng, canary: string): Case {
  const query = r.pick([
    `?__proto__[isAdmin]=1&c=${canary}`,
    `?constructor.prototype.x=${canary}`,
    `?q=${encodeURIComponent(r.pick(HOSTILE))}${canary}`,
    `?%00=${canary}`,
    `?${'a'.repeat(r.int(100, 6000))}=${canary}`,
    `/../ruok?c=${canary}`,
    '',
  ]);
  const headers: Record<string, string> = {
    'X-Service-Channel': `browser-${canary}`,
    api_key: `stolen-${canary}`,
    'X-Service-CustomerID': `other-${canary}`,
    Origin: r.pick([PARTNER, 'http://evil.example', 'null']),
  };
  return {
    route: `/api/ruok${query}`,
    method: 'GET',
    headers,
    status: [200],
    values: [canary],
    what: ['hostile query and headers on /api/ruok'],
  };
}

function generate(r: Prng, i: number): Case {
  const canary = `cnry${i}${r.alnum(6)}`;
  const roll = r.next();
  if (roll < 0.55) return linkCase(r, canary);
  if (roll < 0.88) return resultCase(r, canary);
  if (roll < 0.95) return oddCase(r, canary);
  return ruokCase(r, canary);
}

// -------------------------------------------------------------------- tests

interface Outcome {
  status: number;
  ms: number;
}

describe('fuzz: hostile and malformed requests to every /api route, in workerd', () => {
  it('a valid request passes (so every refusal below is the worker refusing, not a broken base)', async () => {
    const r = prng(SEED);
    const res = await fetch(`${worker.url}/api/onboarding-link`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: PARTNER, 'CF-Connecting-IP': freshIp(11) },
      body: JSON.stringify(validLink(r, 'base')),
    });
    assert.equal(res.status, 200, await res.clone().text());
    session = ((await res.json()) as { session: string }).session;
    const again = await fetch(`${worker.url}/api/result`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: PARTNER, 'CF-Connecting-IP': freshIp(11) },
      body: JSON.stringify({ session, checkId: 'chk-1', token: 'tok-1' }),
    });
    assert.equal(again.status, 200);
    assert.equal(vendor.requests.length, 2);
    sessions = await badSessions();
    // Each forged or damaged token is refused on its own, so the fuzz can rely on them.
    for (const bad of sessions) {
      const res = await fetch(`${worker.url}/api/result`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: PARTNER, 'CF-Connecting-IP': freshIp(11) },
        body: JSON.stringify({ session: bad }),
      });
      assert.equal(res.status, 401, `token ${bad.slice(0, 80)}`);
    }
    assert.equal(vendor.requests.length, 2);
  });

  it(`answers ${COUNT} generated requests (seed ${SEED}) with the documented 4xx ErrorObject, no echo, no credential, no vendor call`, async () => {
    assert.ok(session, 'the valid base request ran first');
    const r = prng(SEED);
    const cases = Array.from({ length: COUNT }, (_, i) => generate(r, i));
    vendor.requests.length = 0;
    const started = Date.now();
    const outcomes: Outcome[] = [];
    const failures: string[] = [];
    const byStatus: Record<string, number> = {};
    const byKind: Record<string, number> = {};
    let ruokCalls = 0;
    await pool(cases, CONCURRENCY, async (c, i) => {
      if (Date.now() - started > TIME_BOUND_MS) return;
      const t0 = performance.now();
      let res: Response;
      try {
        res = await fetch(worker.url + c.route, {
          method: c.method,
          headers: { ...c.headers, 'CF-Connecting-IP': freshIp(12) },
          body: c.body as BodyInit | undefined,
          redirect: 'manual',
        });
      } catch (err) {
        failures.push(
          `#${i} ${c.what.join(' + ')}: no answer (${(err as Error).message} ${String((err as { cause?: { code?: string; message?: string } }).cause?.code ?? (err as { cause?: { message?: string } }).cause?.message)})`,
        );
        return;
      }
      const text = await res.text();
      outcomes.push({ status: res.status, ms: performance.now() - t0 });
      byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
      for (const w of c.what) {
        const k = w.startsWith('content type') ? 'content type' : w;
        byKind[k] = (byKind[k] ?? 0) + 1;
      }
      const context = `#${i} (seed ${SEED}) ${c.method} ${c.route.slice(0, 60)} [${c.what.join(' + ')}] → ${res.status}`;
      try {
        assert.ok(res.status < 500, `${context}: a 5xx`);
        assert.ok(c.status.includes(res.status), `${context}: expected ${c.status.join('/')} ${text.slice(0, 300)}`);
        const haystack = text + '\n' + headerText(res.headers);
        assertNoLeak(haystack, CREDENTIALS, context);
        assertNoLeak(text, c.values, context);
        if (c.route.startsWith('/api/ruok') && c.method === 'GET') {
          ruokCalls++;
          assert.deepEqual(JSON.parse(text), { status: 'OK' }, context);
        } else {
          const e = assertErrorObject(text, res.headers, context);
          if (c.codes) assert.ok(c.codes.includes(e.errorCode), `${context}: errorCode ${e.errorCode}, expected ${c.codes}`);
          if (e.errorCode === 'VALIDATION_FAILED') assert.ok(e.issues.length > 0, `${context}: names the bad fields`);
          if (res.status === 405) assert.ok(res.headers.get('allow'), `${context}: Allow header`);
        }
      } catch (err) {
        failures.push((err as Error).message);
      }
    });
    const elapsed = Date.now() - started;
    const vendorCalls = vendor.requests.filter((q) => !(q.method === 'GET' && q.path === '/v2/kyc/ruok'));
    const ms = outcomes.map((o) => o.ms).sort((a, b) => a - b);
    const figures = {
      date: new Date().toISOString(),
      seed: SEED,
      requests: outcomes.length,
      generated: cases.length,
      durationMs: elapsed,
      concurrency: CONCURRENCY,
      byStatus,
      byKind,
      fiveXx: outcomes.filter((o) => o.status >= 500).length,
      failures: failures.length,
      vendorCallsForInvalidInput: vendorCalls.length,
      ruokRequests: ruokCalls,
      ruokVendorCalls: vendor.requests.length - vendorCalls.length,
      latencyMs: { p50: Math.round(percentile(ms, 50)), p99: Math.round(percentile(ms, 99)), max: Math.round(ms[ms.length - 1] ?? 0) },
    };
    saveResults('fuzz', figures);
    console.log(JSON.stringify(figures));
    if (failures.length) console.log(failures.map((f) => f.slice(0, 400)).join('\n'));
    assert.deepEqual(failures.slice(0, 15), [], `${failures.length} bad answers`);
    assert.deepEqual(
      vendorCalls.map((q) => `${q.method} ${q.path}`),
      [],
      'invalid input reached the vendor',
    );
    assert.ok(ruokCalls === 0 || vendor.requests.length - vendorCalls.length <= ruokCalls, 'ruok is cached');
    assert.ok(outcomes.length >= Math.min(COUNT, 1000), `only ${outcomes.length} requests ran within ${TIME_BOUND_MS} ms`);
  });
});
