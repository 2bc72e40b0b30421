/**
 * The worker's contract with the browser and with the vendor, in node:
 * the real Hono app (`app.request`) with msw standing in for the vendor.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { http, HttpResponse } from 'msw';
import { sign } from 'hono/jwt';
import type { Env } from '../../worker/lib/env';
import { resetRuokCache } from '../../worker/browser-api/ruok';
import {
  API_KEY,
  PARTNER,
  SECRET,
  VENDOR,
  WORKER,
  answerBodies,
  baseEnv,
  call,
  linkAnswer,
  logLines,
  okVendor,
  person,
  record,
  secrets,
  startHarness,
  stopHarness,
  vendor,
  vendorRequests,
} from './harness';
import { adultDateOfBirth, isoDayBefore } from '../support/dates';
import { nodeEnv } from '../support/node-env';
import { never } from '../support/wait';

before(startHarness);
after(stopHarness);
beforeEach(() => {
  vendor(...okVendor);
  resetRuokCache();
});

const link = (json: unknown, init: RequestInit = {}, env = baseEnv) => call('/api/onboarding-link', { method: 'POST', json, ...init }, env);

function assertErrorObject(json: any, errorCode: string): void {
  assert.equal(json.errorCode, errorCode);
  assert.equal(typeof json.errorMsg, 'string');
  assert.ok(Array.isArray(json.issues));
  assert.match(json.requestId, /^[0-9A-HJKMNP-TV-Z]{26}$/);
}

describe('POST /api/onboarding-link', () => {
  it('builds the vendor request itself and answers only url, urlExpiry, status, smsSent, session, verificationId, returnKeys', async () => {
    const res = await link({ ...person, name: { ...person.name, middleName: '  Anh ' }, customerRef: 'cust-ref-1' });
    assert.equal(res.status, 200, res.text);
    // `returnKeys` joined with the return's opaque hint (issue 41): the names idv's hosted flow appends to the return URL.
    assert.deepEqual(Object.keys(res.json).sort(), ['returnKeys', 'session', 'smsSent', 'status', 'url', 'urlExpiry', 'verificationId']);
    assert.deepEqual(res.json.returnKeys, ['checkId', 'token']);
    assert.match(res.json.verificationId, /^vrf_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(res.json.url, linkAnswer.url);
    assert.equal(res.json.urlExpiry, linkAnswer.urlExpiry);
    assert.equal(res.json.status, 'CREATED');
    assert.equal(res.json.smsSent, false);
    const requestId = res.headers.get('X-Request-Id');
    assert.match(requestId ?? '', /^[0-9A-Z]{26}$/);

    assert.equal(vendorRequests.length, 1);
    const seen = vendorRequests[0]!;
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, `${VENDOR}/idv/v2/idvalidate/onboarding-url`);
    assert.equal(seen.headers['api_key'], API_KEY);
    assert.equal(seen.headers['x-service-customerid'], 'cust-42');
    assert.equal(seen.headers['x-service-customerchildid'], 'child-7');
    assert.equal(seen.headers['x-service-channel'], baseEnv.KYC_CHANNEL.slice(0, 64));
    assert.equal(seen.headers['x-service-channel'].length, 64);
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.deepEqual(seen.body, {
      applicationRef: requestId,
      consent: true,
      customerRef: 'cust-ref-1',
      entity: {
        entityType: 'INDIVIDUAL',
        name: { givenName: 'Thi Minh', middleName: 'Anh', familyName: 'Nguyen-Quartermaine' },
        dateOfBirth: { dateOfBirth: person.dateOfBirth },
      },
      flowId: 'flow-idv-1',
      sendSMS: false,
      phoneCode: '+61',
      phoneNumber: '412345678',
      successRedirectURL: `${PARTNER}/?kyc_return=success`,
      errorRedirectURL: `${PARTNER}/?kyc_return=error`,
    });
  });

  it('asks the vendor to text the link, with sender and template, and nothing the person typed', async () => {
    const phishing = { givenName: 'customer. URGENT: card blocked. Call 0400 000 000', familyName: 'Nguyen-Quartermaine' };
    const res = await link({ ...person, name: phishing, sendSMS: true, returnUrl: `${PARTNER}/open-account?step=2` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.smsSent, true);
    const body = vendorRequests[0]!.body as Record<string, unknown>;
    assert.equal(body.sendSMS, true);
    // The spec uses recipientName in the text "when supplied": typed names
    // would let anyone word a text sent under the partner's sender name.
    assert.equal('recipientName' in body, false);
    const { entity, ...rest } = body;
    assert.equal(JSON.stringify(rest).includes('URGENT'), false);
    assert.equal((entity as any).name.givenName, phishing.givenName); // the entity itself keeps the name
    assert.equal(body.senderName, 'AcmeBank');
    assert.equal(body.messageTemplateId, 'tpl-9');
    // A texted flow ends on the worker's own return page, which asks for the
    // code shown on the first device (relay resistance), not on the partner page.
    assert.match(
      String(body.successRedirectURL),
      new RegExp(`^${WORKER}/handoff/${res.json.verificationId}/return\\?r=[A-Za-z0-9_-]{22}&kyc_return=success$`),
    );
    assert.match(String(body.errorRedirectURL), /&kyc_return=error$/);
  });

  it('sends the child header only when configured, and a person with one name', async () => {
    const env = nodeEnv({ ...baseEnv, KYC_CUSTOMER_CHILD_ID: undefined, KYC_CHANNEL: undefined, KYC_FLOW_ID: undefined });
    const res = await link({ ...person, name: { familyName: 'Suharto' } }, {}, env);
    assert.equal(res.status, 200, res.text);
    const seen = vendorRequests[0]!;
    assert.equal(seen.headers['x-service-customerchildid'], undefined);
    assert.equal(seen.headers['x-service-channel'], 'api');
    const body = seen.body as any;
    assert.deepEqual(body.entity.name, { familyName: 'Suharto' });
    assert.equal('flowId' in body, false);
  });

  it('sends names NFC-normalised, and keeps the joiners and variants real names need', async () => {
    const names = [
      // e + combining circumflex + combining tilde: sent as the one precomposed letter.
      [
        { givenName: 'Nguye\u0302\u0303n', familyName: 'Lee' },
        { givenName: 'Nguy\u1ec5n', familyName: 'Lee' },
      ],
      // Persian needs ZWNJ between letters; Devanagari ZWJ; a Japanese name an ideographic variant; mixed directions an RLM.
      [{ givenName: 'می\u200cخواهم', familyName: 'क्\u200dष' }, undefined],
      [{ familyName: '葛\u{e0100}城' }, undefined],
      [{ givenName: 'Dana\u200f', familyName: 'Cohen' }, undefined],
    ] as const;
    for (const [name, sent] of names) {
      vendorRequests.length = 0;
      const res = await link({ ...person, name });
      assert.equal(res.status, 200, `${JSON.stringify(name)}: ${res.text}`);
      assert.deepEqual((vendorRequests[0]!.body as any).entity.name, sent ?? name);
    }
  });

  it('refuses a body that is not JSON, and never calls the vendor', async () => {
    const res = await link(undefined, { body: '{"name": {', headers: { 'Content-Type': 'application/json' } });
    assert.equal(res.status, 400);
    assertErrorObject(res.json, 'INVALID_JSON');
    const wrongType = await link(undefined, { body: 'name=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    assert.equal(wrongType.status, 415);
    assertErrorObject(wrongType.json, 'UNSUPPORTED_MEDIA_TYPE');
    const array = await link([1, 2]);
    assert.equal(array.status, 400);
    assert.equal(vendorRequests.length, 0);
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['no family name', { ...person, name: { givenName: 'Ana' } }, 'name.familyName'],
    ['a blank family name', { ...person, name: { familyName: '   ' } }, 'name.familyName'],
    ['a family name of Hangul fillers (looks blank)', { ...person, name: { familyName: '\u3164\u3164' } }, 'name.familyName'],
    ['a family name of blank Braille', { ...person, name: { familyName: '\u2800' } }, 'name.familyName'],
    [
      'a given name of invisible tag characters',
      { ...person, name: { givenName: '\u{e0041}\u{e0042}', familyName: 'Lee' } },
      'name.givenName',
    ],
    ['a given name over 100 characters', { ...person, name: { givenName: 'G'.repeat(101), familyName: 'Lee' } }, 'name.givenName'],
    // Characters no name needs: they make two names that read the same differ.
    ['a zero-width space in a name', { ...person, name: { givenName: 'Ann\u200ba', familyName: 'Lee' } }, 'name.givenName'],
    ['a soft hyphen in a name', { ...person, name: { familyName: 'Le\u00ade' } }, 'name.familyName'],
    ['a word joiner in a name', { ...person, name: { familyName: 'Le\u2060e' } }, 'name.familyName'],
    ['a BOM inside a name', { ...person, name: { familyName: 'Le\ufeffe' } }, 'name.familyName'],
    ['a combining grapheme joiner', { ...person, name: { familyName: 'Le\u034fe' } }, 'name.familyName'],
    ['a Mongolian vowel separator', { ...person, name: { middleName: 'Bat\u180eor', familyName: 'Lee' } }, 'name.middleName'],
    ['a zero-width joiner in a Latin name', { ...person, name: { familyName: 'Le\u200de' } }, 'name.familyName'],
    ['a combining mark with no base', { ...person, name: { familyName: '\u0301Lee' } }, 'name.familyName'],
    ['a combining mark after a space', { ...person, name: { familyName: 'Lee \u0301' } }, 'name.familyName'],
    ['a private-use character', { ...person, name: { familyName: 'Le\ue000e' } }, 'name.familyName'],
    ['a noncharacter', { ...person, name: { familyName: 'Le\ufdd0e' } }, 'name.familyName'],
    ['a date that is not YYYY-MM-DD', { ...person, dateOfBirth: '23/04/1987' }, 'dateOfBirth'],
    ['a date that does not exist', { ...person, dateOfBirth: '1987-02-30' }, 'dateOfBirth'],
    ['a date in the future', { ...person, dateOfBirth: isoDayBefore(0, -1) }, 'dateOfBirth'],
    ['today', { ...person, dateOfBirth: isoDayBefore(0) }, 'dateOfBirth'],
    ['a person on their 121st birthday', { ...person, dateOfBirth: isoDayBefore(121) }, 'dateOfBirth'],
    ['a date more than 120 years ago', { ...person, dateOfBirth: '1880-01-01' }, 'dateOfBirth'],
    ['a country code without +', { ...person, phone: { code: '61', number: '0412345678' } }, 'phone.code'],
    ['the unassigned country code +999', { ...person, phone: { code: '+999', number: '0412345678' } }, 'phone.code'],
    ['the unassigned country code +6', { ...person, phone: { code: '+6', number: '0412345678' } }, 'phone.code'],
    ['the unassigned country code +80', { ...person, phone: { code: '+80', number: '0412345678' } }, 'phone.code'],
    ['the unassigned country code +1234', { ...person, phone: { code: '+1234', number: '0412345678' } }, 'phone.code'],
    ['the unassigned country code +9999', { ...person, phone: { code: '+9999', number: '0412345678' } }, 'phone.code'],
    ['letters in the number', { ...person, phone: { code: '+61', number: '04xx-CALL-ME' } }, 'phone.number'],
    ['a landline', { ...person, phone: { code: '+61', number: '02 9876 5432' } }, 'phone.number'],
    ['a premium-rate number', { ...person, phone: { code: '+44', number: '0909 879 0000' } }, 'phone.number'],
    // Non-geographic codes: no country, and not a mobile of one.
    ['an international freephone number (+800)', { ...person, phone: { code: '+800', number: '1234 5678' } }, 'phone.code'],
    ['a satellite number (+881)', { ...person, phone: { code: '+881', number: '612 345 678' } }, 'phone.code'],
    ['an international network number (+882)', { ...person, phone: { code: '+882', number: '1234 567 890' } }, 'phone.number'],
    ['an international premium-rate number (+979)', { ...person, phone: { code: '+979', number: '123 456 789' } }, 'phone.code'],
    ['the same, written with its own +', { ...person, phone: { code: '+800', number: '+800 1234 5678' } }, 'phone.code'],
    ['consent false', { ...person, consent: false }, 'consent'],
    ['no consent', { ...person, consent: undefined }, 'consent'],
    ['a customerRef over 100 characters', { ...person, customerRef: 'r'.repeat(101) }, 'customerRef'],
    ['a returnUrl on another site (open redirect)', { ...person, returnUrl: 'https://evil.example/phish' }, 'returnUrl'],
    ['a javascript: returnUrl', { ...person, returnUrl: 'javascript:alert(1)' }, 'returnUrl'],
    ['an unknown field', { ...person, isAdmin: true }, 'isAdmin'],
    ['a string for sendSMS', { ...person, sendSMS: 'yes' }, 'sendSMS'],
  ];
  for (const [what, body, field] of invalid) {
    it(`refuses ${what} with a 400 naming ${field}, without the value, and no vendor call`, async () => {
      const res = await link(body);
      assert.equal(res.status, 400, res.text);
      assertErrorObject(res.json, 'VALIDATION_FAILED');
      assert.ok(
        res.json.issues.some((i: any) => i.issueLocation === field),
        `expected an issue at ${field}: ${JSON.stringify(res.json.issues)}`,
      );
      for (const v of ['G'.repeat(101), '23/04/1987', '1987-02-30', '04xx-CALL-ME', 'evil.example', 'javascript:', 'r'.repeat(101)]) {
        assert.equal(res.text.includes(v), false, `answer echoes ${v}`);
      }
      assert.equal(vendorRequests.length, 0);
    });
  }

  it('with a real vendor, a texted link needs Turnstile unless the operator turned that off: 400 SMS_NOT_ALLOWED on sendSMS, no vendor call', async () => {
    const required: Env = { ...baseEnv, SMS_REQUIRES_TURNSTILE: undefined };
    const res = await link({ ...person, sendSMS: true }, {}, required);
    assert.equal(res.status, 400, res.text);
    assertErrorObject(res.json, 'SMS_NOT_ALLOWED');
    assert.deepEqual(res.json.issues, [{ issue: 'needs the bot check (Turnstile) on this site', issueLocation: 'sendSMS' }]);
    assert.equal(vendorRequests.length, 0);
    // This device (or a QR code) needs none; a texted link does once Turnstile is on, or with the risk taken on purpose.
    assert.equal((await link(person, {}, required)).status, 200);
    assert.equal((await link({ ...person, sendSMS: true }, {}, { ...required, SMS_REQUIRES_TURNSTILE: 'off' })).status, 200);
  });

  it('a valid mobile of a country not on SMS_ALLOWED_COUNTRIES, with sendSMS: 400 SMS_NOT_ALLOWED on phone.number; the same number on this device is fine', async () => {
    const france = { ...person, phone: { code: '+33', number: '06 12 34 56 78' } };
    const res = await link({ ...france, sendSMS: true });
    assert.equal(res.status, 400, res.text);
    assertErrorObject(res.json, 'SMS_NOT_ALLOWED');
    assert.deepEqual(res.json.issues, [{ issue: 'cannot receive a text message from this service', issueLocation: 'phone.number' }]);
    assert.ok(!res.text.includes('612345678') && !res.text.includes('06 12'), 'no value echoed');
    assert.equal(vendorRequests.length, 0);
    const here = await link(france);
    assert.equal(here.status, 200, here.text);
    // On the list, it may be texted.
    const allowed = await link({ ...france, sendSMS: true }, {}, { ...baseEnv, SMS_ALLOWED_COUNTRIES: 'AU,FR' });
    assert.equal(allowed.status, 200, allowed.text);
  });

  it('says a field of the wrong type is of the wrong type, and a missing one is required', async () => {
    const wrong = await link({ ...person, name: { familyName: 98765.4321 }, sendSMS: 'yes-please' });
    assert.equal(wrong.status, 400);
    assert.deepEqual(wrong.json.issues, [
      { issue: 'must be a string', issueLocation: 'name.familyName' },
      { issue: 'must be a boolean', issueLocation: 'sendSMS' },
    ]);
    assert.ok(!wrong.text.includes('98765') && !wrong.text.includes('yes-please'), 'no value echoed');
    const missing = await link({ ...person, dateOfBirth: undefined });
    assert.deepEqual(missing.json.issues, [{ issue: 'is required', issueLocation: 'dateOfBirth' }]);
    assert.equal(vendorRequests.length, 0);
  });

  it('answers a body over 64 KB with 413', async () => {
    const res = await link({ ...person, customerRef: 'x'.repeat(70 * 1024) });
    assert.equal(res.status, 413);
    assertErrorObject(res.json, 'PAYLOAD_TOO_LARGE');
    assert.equal(vendorRequests.length, 0);
  });

  it('refuses a disallowed origin with a 403 that page can read (and nothing else); grants an allowed one', async () => {
    const res = await link(person, { headers: { Origin: 'https://evil.example' } });
    assert.equal(res.status, 403);
    assertErrorObject(res.json, 'ORIGIN_NOT_ALLOWED');
    // Readable by the refused page, so the widget can say "this site is not set up" instead of "check your connection".
    assert.equal(res.headers.get('Access-Control-Allow-Origin'), 'https://evil.example');
    assert.match(res.headers.get('Access-Control-Expose-Headers') ?? '', /X-Request-Id/i);
    assert.equal(vendorRequests.length, 0);
    // Nothing else is: a GET from that page carries no grant.
    const ruok = await call('/api/ruok', { headers: { Origin: 'https://evil.example' } });
    assert.equal(ruok.headers.get('Access-Control-Allow-Origin'), null);

    const preflight = await call('/api/onboarding-link', {
      method: 'OPTIONS',
      headers: {
        Origin: PARTNER,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,idempotency-key',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('Access-Control-Allow-Origin'), PARTNER);
    // The refused page's preflight passes, so the browser sends the request that gets the readable 403.
    const evilPreflight = await call('/api/onboarding-link', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://evil.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,idempotency-key',
      },
    });
    assert.equal(evilPreflight.headers.get('Access-Control-Allow-Origin'), 'https://evil.example');
  });

  it('refuses its own origin with a real vendor (DEMO off by default), with or without ALLOWED_ORIGINS, before any vendor call', async () => {
    for (const env of [{ ...baseEnv, ALLOWED_ORIGINS: undefined }, baseEnv, { ...baseEnv, DEMO: 'off' }]) {
      const res = await link(person, { headers: { Origin: WORKER } }, env);
      assert.equal(res.status, 403, res.text);
      assertErrorObject(res.json, 'ORIGIN_NOT_ALLOWED');
    }
    assert.equal(vendorRequests.length, 0);
  });

  it('accepts its own origin when the operator lists it in ALLOWED_ORIGINS', async () => {
    const res = await link(person, { headers: { Origin: WORKER } }, { ...baseEnv, ALLOWED_ORIGINS: WORKER });
    assert.equal(res.status, 200, res.text);
    assert.equal((vendorRequests[0]!.body as any).successRedirectURL, `${WORKER}/?kyc_return=success`);
  });

  it('replays an Idempotency-Key without a second vendor call, and refuses the key for another body', async () => {
    const headers = { 'Idempotency-Key': 'submission-0001-abcdef' };
    const first = await link({ ...person, sendSMS: true }, { headers });
    const second = await link({ ...person, sendSMS: true }, { headers });
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(second.text, first.text);
    assert.equal(second.headers.get('Idempotent-Replayed'), 'true');
    assert.equal(vendorRequests.length, 1);
    const other = await link({ ...person, dateOfBirth: adultDateOfBirth(50) }, { headers });
    assert.equal(other.status, 409);
    assertErrorObject(other.json, 'IDEMPOTENCY_CONFLICT');
    assert.equal(vendorRequests.length, 1);
    const noKey = await link(person);
    assert.equal(noKey.status, 200);
    assert.equal(vendorRequests.length, 2);
  });

  it('answers 500 MISCONFIGURED with a real vendor and no SESSION_SECRET', async () => {
    const res = await link(person, {}, { ...baseEnv, SESSION_SECRET: undefined });
    assert.equal(res.status, 500);
    assertErrorObject(res.json, 'MISCONFIGURED');
    assert.equal(vendorRequests.length, 0);
    const ruok = await call('/api/ruok', {}, { ...baseEnv, SESSION_SECRET: '' });
    assert.equal(ruok.status, 500);
  });
});

describe('vendor faults on /api/onboarding-link', () => {
  const onboarding = `${VENDOR}/idv/v2/idvalidate/onboarding-url`;
  const faults: [string, () => ReturnType<typeof http.post>, number, string][] = [
    [
      '401 (our credentials)',
      () => http.post(onboarding, () => HttpResponse.json({ errorCode: 'AUTH' }, { status: 401 })),
      502,
      'VENDOR_REJECTED',
    ],
    ['403 (our credentials)', () => http.post(onboarding, () => new HttpResponse(null, { status: 403 })), 502, 'VENDOR_REJECTED'],
    [
      '500 ErrorObject',
      () => http.post(onboarding, () => HttpResponse.json({ errorCode: 'E', errorMsg: 'boom' }, { status: 500 })),
      502,
      'VENDOR_ERROR',
    ],
    ['503 HTML', () => http.post(onboarding, () => new HttpResponse('<html>down</html>', { status: 503 })), 502, 'VENDOR_ERROR'],
    ['200 non-JSON', () => http.post(onboarding, () => new HttpResponse('OK!', { status: 200 })), 502, 'VENDOR_ERROR'],
    [
      '200 truncated JSON',
      () =>
        http.post(
          onboarding,
          () => new HttpResponse('{"entity":{"entityId":"7d', { status: 200, headers: { 'Content-Type': 'application/json' } }),
        ),
      502,
      'VENDOR_ERROR',
    ],
    ['200 of the wrong shape', () => http.post(onboarding, () => HttpResponse.json({ hello: 'world' })), 502, 'VENDOR_ERROR'],
    [
      'a redirect',
      () => http.post(onboarding, () => new HttpResponse(null, { status: 302, headers: { Location: 'https://elsewhere.test/' } })),
      502,
      'VENDOR_ERROR',
    ],
    ['418', () => http.post(onboarding, () => HttpResponse.json({}, { status: 418 })), 502, 'VENDOR_ERROR'],
    ['a refused connection', () => http.post(onboarding, () => HttpResponse.error()), 502, 'VENDOR_ERROR'],
    [
      'no answer within KYC_TIMEOUT_MS',
      () =>
        http.post(onboarding, async () => {
          await never();
          return HttpResponse.json(linkAnswer);
        }),
      504,
      'VENDOR_TIMEOUT',
    ],
    [
      'headers in time but a body that never ends',
      () =>
        http.post(
          onboarding,
          () =>
            new HttpResponse(
              new ReadableStream({
                start(c) {
                  c.enqueue(new TextEncoder().encode('{"entity":'));
                },
              }),
              { status: 200 },
            ),
        ),
      504,
      'VENDOR_TIMEOUT',
    ],
  ];
  for (const [what, handler, status, code] of faults) {
    it(`maps vendor ${what} to ${status} ${code}, in time`, async () => {
      vendor(handler());
      const started = Date.now();
      const res = await link(person);
      assert.ok(Date.now() - started < 300 + 700, 'answered within the timeout plus a margin');
      assert.equal(res.status, status, res.text);
      assertErrorObject(res.json, code);
      assert.equal(res.text.includes('boom'), false);
    });
  }

  it('maps a vendor 429 to 503 VENDOR_BUSY with its Retry-After (a default where it gave none), not 502 VENDOR_ERROR', async () => {
    vendor(http.post(onboarding, () => HttpResponse.json({ errorCode: 'SLOW_DOWN' }, { status: 429, headers: { 'Retry-After': '7' } })));
    const res = await link(person);
    assert.equal(res.status, 503, res.text);
    assertErrorObject(res.json, 'VENDOR_BUSY');
    assert.equal(res.headers.get('Retry-After'), '7');
    vendor(http.post(onboarding, () => new HttpResponse(null, { status: 429 })));
    const bare = await link(person);
    assert.equal(bare.status, 503, bare.text);
    assert.equal(bare.headers.get('Retry-After'), '30');
  });

  it('maps a vendor 400/422 ErrorObject to a 400 on our field names, without the vendor text', async () => {
    for (const status of [400, 422]) {
      vendor(
        http.post(onboarding, () =>
          HttpResponse.json(
            {
              errorCode: 'INVALID',
              errorMsg: 'bad',
              issues: [
                { issue: 'Nguyen-Quartermaine is not allowed', issueLocation: 'entity.name.familyName' },
                { issue: 'x', issueLocation: 'secret.internal' },
              ],
            },
            { status },
          ),
        ),
      );
      const res = await link(person);
      assert.equal(res.status, 400);
      assertErrorObject(res.json, 'VALIDATION_FAILED');
      assert.deepEqual(
        res.json.issues.map((i: any) => i.issueLocation),
        ['name.familyName', '<body>'],
      );
      assert.equal(res.text.includes('Quartermaine'), false);
    }
  });

  it('never retries the link call (it may send an SMS)', async () => {
    let calls = 0;
    vendor(
      http.post(onboarding, () => {
        calls++;
        return new HttpResponse(null, { status: 503 });
      }),
    );
    await link({ ...person, sendSMS: true });
    assert.equal(calls, 1);
  });

  it('keeps a timed-out SMS request answered from the record: a replay does not text twice', async () => {
    let calls = 0;
    vendor(
      http.post(onboarding, async () => {
        calls++;
        await never();
        return HttpResponse.json(linkAnswer);
      }),
    );
    const headers = { 'Idempotency-Key': 'submission-timeout-0001' };
    const first = await link({ ...person, sendSMS: true }, { headers });
    const again = await link({ ...person, sendSMS: true }, { headers });
    assert.equal(first.status, 504);
    assert.equal(again.status, 504);
    assert.equal(calls, 1);
  });

  it('lets a refused request be retried with the same key', async () => {
    let calls = 0;
    vendor(
      http.post(onboarding, async ({ request }) => {
        calls++;
        if (calls === 1) return HttpResponse.error();
        await record(request);
        return HttpResponse.json(linkAnswer);
      }),
    );
    const headers = { 'Idempotency-Key': 'submission-refused-0001' };
    assert.equal((await link(person, { headers })).status, 502);
    assert.equal((await link(person, { headers })).status, 200);
    assert.equal(calls, 2);
  });
});

async function session(): Promise<string> {
  const res = await link(person);
  assert.equal(res.status, 200, res.text);
  vendorRequests.length = 0;
  return res.json.session;
}

describe('POST /api/result', () => {
  it("asks the vendor about the session's entity and answers checkStatus, verificationId and a result token", async () => {
    const s = await session();
    const res = await call('/api/result', { method: 'POST', json: { session: s, checkId: 'chk-1' } });
    assert.equal(res.status, 200, res.text);
    // `status`, `vendor` and `result` joined the answer with the second vendor (docs/vendors.md): the outcome in our words.
    assert.deepEqual(Object.keys(res.json).sort(), ['checkStatus', 'result', 'resultToken', 'status', 'vendor', 'verificationId']);
    assert.equal(res.json.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.match(res.json.resultToken, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const seen = vendorRequests[0]!;
    assert.equal(seen.url, `${VENDOR}/idv/v2/idvalidate/result`);
    assert.equal(seen.headers['api_key'], API_KEY);
    // The browser's check id is a hint (ask now), never sent: the vendor is asked about the session's entity.
    assert.deepEqual(seen.body, { entity: { entityId: linkAnswer.entity.entityId }, provider: 'provider-x' });
  });

  it('takes the return parameters as an opaque hint (or, from a widget served before it, as top-level fields); bad ones are a 400 naming the field', async () => {
    const s = await session();
    const ok = await call('/api/result', { method: 'POST', json: { session: s, hint: { checkId: 'chk-1', token: 'tok-1' } } });
    assert.equal(ok.status, 200, ok.text);
    // Never sent on: the vendor is asked about the session's entity.
    assert.equal((vendorRequests.at(-1)!.body as { checkId?: string }).checkId, undefined);
    const legacy = await call('/api/result', {
      method: 'POST',
      json: { session: s, checkId: 'chk-2', token: 'tok-2', returned: 'success' },
    });
    assert.equal(legacy.status, 200, legacy.text);
    const refused: [string, Record<string, unknown>, string][] = [
      ['a name that is not a parameter name', { hint: { 'a-b': 'x' } }, 'hint.<unknown>'],
      ['five parameters', { hint: { a: '1', b: '2', c: '3', d: '4', e: '5' } }, 'hint'],
      ['an overlong value', { hint: { a: 'x'.repeat(201) } }, 'hint.a'],
      ['an empty value', { hint: { a: ' ' } }, 'hint.a'],
      ['a value that is not text', { hint: { a: 1 } }, 'hint.a'],
      ['a top-level field that is not text', { extra: 1 }, 'extra'],
      ['a top-level field that is not a parameter name', { '9lives': 'x' }, '9lives'],
      ['five top-level parameters', { a: '1', b: '2', c: '3', d: '4', e: '5' }, 'e'],
      ['both ways at once', { hint: { a: '1' }, b: '2' }, 'b'],
      ['a __proto__ key', JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>, '__proto__'],
    ];
    for (const [what, extra, field] of refused) {
      const res = await call('/api/result', { method: 'POST', json: { session: s, ...extra } });
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assertErrorObject(res.json, 'VALIDATION_FAILED');
      assert.deepEqual(
        res.json.issues.map((i: { issueLocation: string }) => i.issueLocation),
        [field],
        what,
      );
    }
  });

  it('refuses a missing, tampered or expired session with 401, without asking the vendor', async () => {
    const s = await session();
    const [h, p, sig] = s.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url')}.${sig}`;
    const expired = await sign({ ...payload, exp: Math.floor(Date.now() / 1000) - 5 }, SECRET, 'HS256');
    const otherKey = await sign(payload, 'not-our-secret-at-all', 'HS256');
    for (const bad of [undefined, '', 'garbage', forged, expired, otherKey]) {
      const res = await call('/api/result', { method: 'POST', json: { session: bad } });
      assert.equal(res.status, 401, `session ${String(bad).slice(0, 20)}: ${res.text}`);
      assertErrorObject(res.json, 'SESSION_INVALID');
    }
    assert.equal(vendorRequests.length, 0);
  });

  it('refuses a session used from another allowed origin with 403', async () => {
    const s = await session();
    const res = await call('/api/result', { method: 'POST', json: { session: s }, headers: { Origin: 'https://other-partner.example' } });
    assert.equal(res.status, 403);
    assertErrorObject(res.json, 'ORIGIN_NOT_ALLOWED');
    assert.equal(vendorRequests.length, 0);
  });

  it('maps vendor faults (401, 5xx, garbage, timeout)', async () => {
    const url = `${VENDOR}/idv/v2/idvalidate/result`;
    const cases: [ReturnType<typeof http.post>, number][] = [
      [http.post(url, () => new HttpResponse(null, { status: 401 })), 502],
      [http.post(url, () => new HttpResponse('nope', { status: 500 })), 502],
      [http.post(url, () => HttpResponse.json({ checkStatus: 42 })), 502],
      [
        http.post(url, async () => {
          await never();
          return HttpResponse.json({});
        }),
        504,
      ],
    ];
    for (const [handler, status] of cases) {
      vendor(...okVendor);
      const fresh = await session(); // a new verification: the last one was just polled
      vendor(handler);
      const res = await call('/api/result', { method: 'POST', json: { session: fresh } });
      assert.equal(res.status, status, res.text);
    }
  });
});

/** A queue binding that takes what is sent (nothing here reads it). */
const boundQueue = { send: async () => undefined, sendBatch: async () => undefined } as unknown as Env['EVENTS_QUEUE'];

describe('GET /api/ruok', () => {
  it('warns, still OK, without the EVENTS_QUEUE binding: the operator’s events are dropped (and the log says so)', async () => {
    resetRuokCache();
    const res = await call('/api/ruok');
    assert.equal(res.status, 200);
    const body = res.json as { status: string; warnings?: { issueLocation: string; issue: string }[] };
    assert.equal(body.status, 'OK');
    assert.deepEqual(
      body.warnings?.map((w) => w.issueLocation),
      ['EVENTS_QUEUE'],
    );
    assert.match(body.warnings?.[0]?.issue ?? '', /not bound/);
    resetRuokCache();
  });

  it('answers OK when the vendor confirms our credentials, and caches it briefly', async () => {
    // A deployment with every binding (an operator's events have their queue): nothing to warn about.
    const res = await call('/api/ruok', {}, { ...baseEnv, EVENTS_QUEUE: boundQueue });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { status: 'OK' });
    assert.equal(vendorRequests[0]!.url, `${VENDOR}/v2/kyc/ruok`);
    assert.equal(vendorRequests[0]!.method, 'GET');
    assert.equal(vendorRequests[0]!.headers['api_key'], API_KEY);
    assert.equal(vendorRequests[0]!.headers['x-service-customerid'], 'cust-42');
    await call('/api/ruok');
    assert.equal(vendorRequests.length, 1);
  });

  it('answers 502 for every vendor failure, including a timeout', async () => {
    const url = `${VENDOR}/v2/kyc/ruok`;
    for (const handler of [
      http.get(url, () => HttpResponse.json({ status: 'DEGRADED' })),
      http.get(url, () => new HttpResponse(null, { status: 401 })),
      http.get(url, () => HttpResponse.error()),
      http.get(url, async () => {
        await never();
        return HttpResponse.json({ status: 'OK' });
      }),
    ]) {
      vendor(handler);
      resetRuokCache();
      const res = await call('/api/ruok');
      assert.equal(res.status, 502, res.text);
      assertErrorObject(res.json, 'VENDOR_ERROR');
    }
  });
});

describe('everything else', () => {
  it('answers an unknown route with a 404 ErrorObject and a request id', async () => {
    const res = await call('/api/nope');
    assert.equal(res.status, 404);
    assertErrorObject(res.json, 'NOT_FOUND');
    assert.equal(res.headers.get('X-Request-Id'), res.json.requestId);
  });

  it('hides /sandbox while a real vendor is configured', async () => {
    const res = await call('/sandbox/v2/kyc/ruok');
    assert.equal(res.status, 404);
  });

  it('sends secure headers on every answer, errors included', async () => {
    const limited: Env = { ...baseEnv, RL_IP: { limit: async () => ({ success: false }) } };
    const broken: Env = { ...baseEnv, KYC_BASE_URL: 'not a url' };
    const cases: [string, Promise<Awaited<ReturnType<typeof call>>>, number][] = [
      ['200', call('/api/ruok'), 200],
      [
        '403 from the origin guard',
        call('/api/onboarding-link', { method: 'POST', json: person, headers: { Origin: 'https://evil.example' } }),
        403,
      ],
      ['404', call('/nothing-here'), 404],
      ['405', call('/api/onboarding-link', { method: 'PUT', json: person }), 405],
      [
        '413',
        call('/api/onboarding-link', { method: 'POST', body: 'x'.repeat(70_000), headers: { 'Content-Type': 'application/json' } }),
        413,
      ],
      ['415', call('/api/onboarding-link', { method: 'POST', body: '{}', headers: { 'Content-Type': 'text/plain' } }), 415],
      ['429', call('/api/onboarding-link', { method: 'POST', json: person }, limited), 429],
      ['500', call('/api/onboarding-link', { method: 'POST', json: person }, broken), 500],
    ];
    for (const [what, pending, status] of cases) {
      const res = await pending;
      assert.equal(res.status, status, `${what}: ${res.text}`);
      assert.equal(res.headers.get('X-Content-Type-Options'), 'nosniff', what);
      assert.equal(res.headers.get('X-Frame-Options'), 'SAMEORIGIN', what);
      assert.ok(res.headers.get('Strict-Transport-Security'), what);
      assert.ok(res.headers.get('X-Request-Id'), what);
    }
  });

  it('says Cache-Control: no-store on every /api answer, errors and preflights included', async () => {
    const limited: Env = { ...baseEnv, RL_IP: { limit: async () => ({ success: false }) } };
    const broken: Env = { ...baseEnv, KYC_BASE_URL: 'not a url' };
    const linked = await link(person);
    const cases: [string, Promise<Awaited<ReturnType<typeof call>>>, number][] = [
      ['the link answer (a session, a code)', Promise.resolve(linked), 200],
      ['the result answer (a token)', call('/api/result', { method: 'POST', json: { session: linked.json.session, checkId: 'c-1' } }), 200],
      ['ruok', call('/api/ruok'), 200],
      [
        'a preflight',
        call('/api/result', { method: 'OPTIONS', headers: { Origin: PARTNER, 'Access-Control-Request-Method': 'POST' } }),
        204,
      ],
      ['400', call('/api/onboarding-link', { method: 'POST', json: { ...person, consent: false } }), 400],
      ['401', call('/api/result', { method: 'POST', json: { session: 'nope' } }), 401],
      ['403', call('/api/onboarding-link', { method: 'POST', json: person, headers: { Origin: 'https://evil.example' } }), 403],
      ['404', call('/api/nope'), 404],
      ['405', call('/api/onboarding-link', { method: 'PUT', json: person }), 405],
      [
        '413',
        call('/api/onboarding-link', { method: 'POST', body: 'x'.repeat(70_000), headers: { 'Content-Type': 'application/json' } }),
        413,
      ],
      ['429', call('/api/onboarding-link', { method: 'POST', json: person }, limited), 429],
      ['500', call('/api/onboarding-link', { method: 'POST', json: person }, broken), 500],
    ];
    for (const [what, pending, status] of cases) {
      const res = await pending;
      assert.equal(res.status, status, `${what}: ${res.text}`);
      assert.equal(res.headers.get('Cache-Control'), 'no-store', what);
    }
  });

  it('refuses a KYC_BASE_URL that would send api_key in clear (http off loopback) with 500 MISCONFIGURED, before any call', async () => {
    const res = await link(person, {}, { ...baseEnv, KYC_BASE_URL: 'http://vendor.test' });
    assert.equal(res.status, 500, res.text);
    assertErrorObject(res.json, 'MISCONFIGURED');
    assert.equal(vendorRequests.length, 0);
    // A vendor double on this machine may speak http.
    const local = await call('/api/ruok', {}, { ...baseEnv, KYC_BASE_URL: 'http://127.0.0.1:9' });
    assert.notEqual(local.json.errorCode, 'MISCONFIGURED', local.text);
    assert.equal((await call('/api/ruok', {}, { ...baseEnv, KYC_BASE_URL: 'http://vendor.test' })).json.errorCode, 'MISCONFIGURED');
  });

  it('logs one structured line per request, with no personal data', async () => {
    const from = logLines.length;
    await link(person);
    const lines = logLines.slice(from).map((l) => JSON.parse(l));
    assert.equal(lines.length, 1);
    assert.deepEqual(Object.keys(lines[0]).sort(), [
      'durationMs',
      'event',
      'level',
      'method',
      'partner',
      'requestId',
      'route',
      'status',
      'vendorStatus',
    ]);
    assert.equal(lines[0].route, '/api/onboarding-link');
    assert.equal(lines[0].partner, 'environment');
    assert.equal(lines[0].vendorStatus, 200);
  });
});

// Runs last (node:test runs in order): every answer and log line of this file.
describe('leak scan', () => {
  it("no answer body or log line carries the api key, the session secret or the person's data", () => {
    assert.ok(answerBodies.length > 40 && logLines.length > 5, 'the scan has material');
    for (const text of [...answerBodies, ...logLines]) {
      for (const s of secrets) assert.equal(text.includes(s), false, `leaked ${s} in ${text.slice(0, 200)}`);
    }
  });
});
