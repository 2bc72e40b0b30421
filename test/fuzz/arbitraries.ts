/**
 * fast-check arbitraries for the browser-facing API, written once per schema
 * of `worker/contract.ts` (zod-fast-check does not support zod 4). Each field
 * mixes *well-formed* values a library may still reject by throwing (every
 * calling code from +0 to +9999, numbers of every length, every date shape,
 * every Unicode category in names) with broken ones (wrong types, missing,
 * over-long). The first round's fuzzer only broke structure; the `+999` class
 * hid in well-formed values.
 */
import fc from 'fast-check';

/** Any JSON value of the wrong kind for a field. */
const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
);

/** A character of a Unicode category names rarely (or never) hold. */
const oddCharacter = fc.constantFrom(
  '\u0000',
  '\u0007',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u00ad',
  '\u034f',
  '\u061c',
  '\u115f',
  '\u1160',
  '\u180e',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u200e',
  '\u200f',
  '\u2028',
  '\u2029',
  '\u202a',
  '\u202e',
  '\u2060',
  '\u2066',
  '\u2069',
  '\u2800',
  '\u3000',
  '\u3164',
  '\ufe0f',
  '\ufeff',
  '\uffa0',
  '\ufffd',
  '\ufffe',
  '\uffff',
  '\ud800',
  '\udc00',
  '\udb40\udc41',
  '\udb40\udc7f',
  '\ud83d\ude00',
  '\ud83d\udc69\u200d\ud83d\udcbb',
  '\u0301',
  '\u0e33',
  '\u05d0',
  '\u0627',
  '\u4e2d',
  '\uac00',
  '\u0928\u093f',
  'ß',
  'İ',
  'ǅ',
  '"',
  '\\',
  '<',
  '>',
  '&',
  "'",
  '%s',
);

/** Names: letters of many scripts, odd characters, spaces, any code point, lengths around the 100 limit. */
export const namePart = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.oneof(oddCharacter, fc.string({ unit: 'grapheme-ascii', maxLength: 3 })), { maxLength: 12 })
      .map((a) => a.join('')),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 95, max: 110 }).chain((n) => fc.constantFrom('a', 'é', '中', '\ud83d\ude00', ' ').map((c) => c.repeat(n))),
  },
  { weight: 1, arbitrary: wrongType },
);

/** Every calling code from +0 to +9999, in several spellings, and broken ones. */
export const phoneCode = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 9999 }).map((n) => `+${n}`) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 9999 }).map((n) => `${n}`) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 0, max: 999 }), fc.constantFrom(' ', '  ', '\t')).map(([n, s]) => `${s}+${n}${s}`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: wrongType },
);

/** Numbers of every length, written as people write them, and broken ones. */
export const phoneNumber = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 0, maxLength: 24 }) },
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.oneof(
          fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 4 }),
          fc.constantFrom(' ', '-', '(', ')', '.', '+'),
        ),
        { maxLength: 12 },
      )
      .map((a) => a.join('')),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: wrongType },
);

const DAY_MS = 86_400_000;

/**
 * Real days around the age rule's edges: from a few days ahead of today (UTC,
 * read when the value is made, so the clock the test controls decides) back
 * to 125 years ago.
 */
export const recentDay = fc
  .integer({ min: -5, max: 125 * 366 })
  .map((daysAgo) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10));

/** Every date shape: real and unreal days, short and long years, other separators and orders. */
export const dateOfBirth = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
      .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.integer({ min: -99999, max: 99999 }),
        fc.integer({ min: -1, max: 99 }),
        fc.integer({ min: -1, max: 99 }),
        fc.constantFrom('-', '/', '.', ' ', ''),
      )
      .map(([y, m, d, s]) => `${y}${s}${m}${s}${d}`),
  },
  { weight: 4, arbitrary: recentDay },
  { weight: 1, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) },
  { weight: 1, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: wrongType },
);

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });

export const PARTNER_PAGE = 'https://partner.example';

const returnUrl = fc.oneof(
  fc.constant(`${PARTNER_PAGE}/done`),
  fc.webUrl(),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    'javascript:alert(1)',
    '//evil.example',
    `${PARTNER_PAGE}@evil.example`,
    'https://partner.example.evil.example/',
    'data:text/html,x',
    `${PARTNER_PAGE}:99999/`,
  ),
  wrongType,
);

/**
 * Any body for POST /api/onboarding-link: every field of the schema (and some
 * that are not), each well-formed or broken, independently.
 */
const anyOnboardingBody = fc.record(
  {
    name: fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record(
          { givenName: optional(namePart), middleName: optional(namePart), familyName: optional(namePart) },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: wrongType },
    ),
    dateOfBirth,
    phone: fc.oneof(
      { weight: 8, arbitrary: fc.record({ code: phoneCode, number: phoneNumber }, { requiredKeys: [] }) },
      { weight: 1, arbitrary: wrongType },
    ),
    consent: fc.oneof(
      { weight: 6, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: wrongType },
    ),
    sendSMS: fc.oneof(fc.boolean(), wrongType),
    handoff: fc.oneof(fc.boolean(), wrongType),
    customerRef: fc.oneof(fc.string({ unit: 'binary', maxLength: 110 }), wrongType),
    returnUrl,
    turnstileToken: fc.oneof(fc.string({ maxLength: 40 }), wrongType),
    lang: fc.oneof(fc.constantFrom('fr', 'fr-CA', 'ar', 'zh-Hant-TW', 'x', 'en-'), fc.string({ maxLength: 40 }), wrongType),
    // Fields the schema does not know.
    entityId: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: [] },
);

/** A body for POST /api/result: sessions, check ids and tokens of every shape. */
export const resultBody = fc.record(
  {
    session: fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.tuple(fc.base64String(), fc.base64String(), fc.base64String()).map((p) => p.join('.')),
      fc.constant('eyJhbGciOiJub25lIn0.eyJ2aWQiOiJ4In0.'),
      wrongType,
    ),
    checkId: fc.oneof(fc.string({ unit: 'binary', maxLength: 210 }), wrongType),
    token: fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), wrongType),
    extra: fc.string({ maxLength: 5 }),
  },
  { requiredKeys: [] },
);

/** Paths and queries for the worker's pages (handoff, JWKS, unknown paths). */
export const pageRequest = fc.oneof(
  fc
    .tuple(
      fc.oneof(fc.constant('vrf_01J0000000000000000000000A'), fc.string({ maxLength: 40 })),
      fc.string({ maxLength: 70 }),
      fc.boolean(),
    )
    .map(([vid, t, ret]) => `/handoff/${encodeURIComponent(vid)}${ret ? '/return?r=' : '?t='}${encodeURIComponent(t)}`),
  fc.string({ unit: 'binary', maxLength: 30 }).map((s) => `/${encodeURIComponent(s)}`),
  fc.constantFrom('/.well-known/jwks.json', '/api/ruok', '/api/result', '/handoff/page.css', '/sandbox/v2/kyc/ruok'),
);

/** A request the worker accepts, as the widget would send it. */
export const validPerson = () => ({
  name: { givenName: 'Ana', familyName: 'Lima' },
  dateOfBirth: new Date(Date.now() - 30 * 365 * DAY_MS).toISOString().slice(0, 10),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true as unknown,
});

/**
 * A valid request with one or two fields replaced by generated ones: so a
 * value deep in the rules (a calling code the phone library has no metadata
 * for, a name only of invisible letters) is reached at all, instead of an
 * earlier field refusing the request first.
 */
const replacements = {
  givenName: namePart,
  familyName: namePart,
  dateOfBirth,
  code: phoneCode,
  number: phoneNumber,
  consent: fc.oneof(fc.constant(true), wrongType),
  sendSMS: fc.boolean(),
  handoff: fc.boolean(),
  customerRef: fc.string({ unit: 'grapheme', maxLength: 110 }),
  returnUrl,
};
type Replaceable = keyof typeof replacements;

const nearlyValidBody = fc
  .subarray(Object.keys(replacements) as Replaceable[], { minLength: 1, maxLength: 2 })
  .chain((keys) => fc.record(Object.fromEntries(keys.map((k) => [k, replacements[k]])) as { [K in Replaceable]?: fc.Arbitrary<unknown> }))
  .map((o: Partial<Record<Replaceable, unknown>>) => {
    const body: Record<string, any> = validPerson();
    if ('givenName' in o) body.name.givenName = o.givenName;
    if ('familyName' in o) body.name.familyName = o.familyName;
    if ('dateOfBirth' in o) body.dateOfBirth = o.dateOfBirth;
    if ('code' in o) body.phone.code = o.code;
    if ('number' in o) body.phone.number = o.number;
    for (const k of ['consent', 'sendSMS', 'handoff', 'customerRef', 'returnUrl'] as const) if (k in o) body[k] = o[k];
    return body;
  });

/** A new link asked with a session instead of details (worker/browser-api/renew-link.ts): forged, malformed or mistyped. */
const renewalBody = fc.record(
  {
    session: fc.oneof(fc.string({ maxLength: 300 }), wrongType),
    lang: fc.oneof(fc.constantFrom('fr', 'en-GB', 'x'), fc.string({ maxLength: 40 }), wrongType),
    returnUrl,
    turnstileToken: fc.string({ maxLength: 50 }),
    sendSMS: fc.boolean(),
  },
  { requiredKeys: ['session'] },
);

export const onboardingBody = fc.oneof(anyOnboardingBody, nearlyValidBody, renewalBody);
