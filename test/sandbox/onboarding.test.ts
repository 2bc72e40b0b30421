/** Contract: the onboarding link (spec 4.1), the data-model rules of section 2, the outbox. */
import assert from 'node:assert/strict';
import { before, beforeEach, describe, it } from 'node:test';
import { outboxRef } from '../../sandbox/outbox';
import { advanceSandboxClock, freshSandbox } from '../support/vendor-sandbox';
import { assertErrorObject, childA, childB, client, other, parent, person, raw, rejects, BASE, ORIGIN } from './helpers';

beforeEach(() => freshSandbox());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PNG = 'iVBORw0KGgo=';

describe('POST /idv/v2/idvalidate/onboarding-url', () => {
  it('creates the entity with server-assigned UUIDs and answers {entity, status, url, urlExpiry}', async () => {
    const before = Date.now();
    const link = await client(parent).onboardingUrl({
      consent: true,
      entity: {
        entityId: undefined,
        name: { givenName: 'Ann', familyName: 'Lee' },
        dateOfBirth: { dateOfBirth: '1990-02-03' },
        addresses: [{ country: 'AU', streetNumber: '1', streetName: 'Main', streetType: 'St', town: 'Sydney' }],
        identityDocs: [
          {
            idType: 'PASSPORT',
            country: 'United Kingdom',
            idNumber: 'P123',
            docScan: [{ scanMIME: 'image/png', scanData: PNG, scanSide: 'F' }],
          },
        ],
      },
    });
    const e = link.entity;
    assert.match(e.entityId!, UUID);
    assert.match(e.addresses![0]!.addressId!, UUID);
    assert.match(e.identityDocs![0]!.documentId!, UUID);
    const scan = e.identityDocs![0]!.docScan![0]!;
    assert.match(scan.scanDocId!, UUID);
    assert.equal(scan.scanFilename, `${scan.scanDocId}.png`, 'named from scanDocId and the MIME type');
    assert.equal(scan.scanData, undefined, 'scan contents never come back');
    assert.equal(e.dateOfBirth!.yearOfBirth, '1990', 'yearOfBirth derived from dateOfBirth');
    assert.equal(e.addresses![0]!.country, 'AUS', 'alpha-2 converted to alpha-3');
    assert.equal(e.identityDocs![0]!.country, 'GBR', 'English name converted to alpha-3');
    assert.equal(link.status, 'CREATED');
    assert.ok(link.url.startsWith(`${ORIGIN}/sandbox/flow/`), link.url);
    assert.match(link.url.slice(`${ORIGIN}/sandbox/flow/`.length), /^[A-Za-z0-9_-]{20,}$/);
    const expiry = Date.parse(link.urlExpiry);
    assert.match(link.urlExpiry, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    assert.ok(expiry >= before + 29 * 60_000 && expiry <= Date.now() + 30 * 60_000 + 1000, 'link lives 30 minutes');
  });

  it('attaches consent.general and consent.docs only when consent is true', async () => {
    const yes = await client(parent).onboardingUrl(person());
    const keys = (yes.entity.extraData ?? []).map((k) => `${k.kvpKey}=${k.kvpValue}`);
    assert.deepEqual(keys, ['consent.general=true', 'consent.docs=true']);
    const no = await client(parent).onboardingUrl({ ...person(), consent: false });
    assert.equal(no.entity.extraData, undefined);
  });

  it('updates an entity by entityId: extraData overwrite-by-name and add-new, addresses by addressId', async () => {
    const c = client(parent);
    const first = await c.onboardingUrl({
      entity: {
        name: { familyName: 'Lee', givenName: 'Ann' },
        extraData: [
          { kvpKey: 'crm.id', kvpValue: 'A1' },
          { kvpKey: 'keep', kvpValue: 'k' },
        ],
        addresses: [{ country: 'AUS', town: 'Sydney' }],
      },
    });
    const id = first.entity.entityId!;
    const addressId = first.entity.addresses![0]!.addressId!;
    const second = await c.onboardingUrl({
      entity: {
        entityId: id,
        extraData: [
          { kvpKey: 'crm.id', kvpValue: 'A2' },
          { kvpKey: 'new', kvpValue: 'n' },
        ],
        addresses: [{ addressId, country: 'AUS', town: 'Melbourne' }],
      },
    });
    assert.equal(second.entity.entityId, id);
    assert.deepEqual(
      second.entity.extraData!.map((k) => `${k.kvpKey}=${k.kvpValue}`),
      ['crm.id=A2', 'keep=k', 'new=n'],
    );
    assert.equal(second.entity.addresses!.length, 1);
    assert.equal(second.entity.addresses![0]!.town, 'Melbourne');
    assert.equal(second.entity.name!.givenName, 'Ann', 'untouched fields stay');
    await rejects(
      c.onboardingUrl({ entity: { entityId: id, addresses: [{ addressId: crypto.randomUUID(), country: 'AUS' }] } }),
      400,
      undefined,
      'entity.addresses.0.addressId',
    );
  });

  it('lets only the owner update an entity', async () => {
    const mine = await client(childA).onboardingUrl(person());
    const entity = { entityId: mine.entity.entityId, name: { familyName: 'Hijack' } };
    for (const creds of [childB, other, parent]) {
      await rejects(client(creds).onboardingUrl({ entity }), 404, 'NOT_FOUND', 'entity.entityId');
    }
    await rejects(client(parent).onboardingUrl({ entity: { entityId: crypto.randomUUID() } }), 404);
  });

  it('refuses an OCR flow without consent (known condition 1) and unknown flows', async () => {
    const c = client(parent);
    for (const flowId of ['idv', 'ocr_only']) {
      await rejects(c.onboardingUrl({ ...person(), flowId, consent: undefined }), 400, 'OCR_CONSENT_REQUIRED', 'consent');
      await rejects(c.onboardingUrl({ ...person(), flowId, consent: false }), 400, 'OCR_CONSENT_REQUIRED', 'consent');
      assert.equal((await c.onboardingUrl({ ...person(), flowId, consent: true })).status, 'CREATED');
    }
    assert.equal((await c.onboardingUrl({ ...person(), flowId: 'manual', consent: false })).status, 'CREATED');
    await rejects(c.onboardingUrl({ ...person(), flowId: 'no-such-flow' }), 400, 'UNKNOWN_FLOW', 'flowId');
  });

  it('takes requestedDocuments only with a flow that takes them', async () => {
    const c = client(parent);
    const requestedDocuments = [{ documentType: 'TRUST_DEED' }];
    await rejects(c.onboardingUrl({ ...person(), requestedDocuments }), 400, 'INVALID_REQUEST', 'requestedDocuments');
    await rejects(c.onboardingUrl({ ...person(), flowId: 'idv', requestedDocuments }), 400, undefined, 'requestedDocuments');
    assert.equal((await c.onboardingUrl({ ...person(), flowId: 'business_docs', requestedDocuments })).status, 'CREATED');
  });

  it('breaks an address longForm into parts, or refuses it (known condition 2)', async () => {
    const c = client(parent);
    const ok = await c.onboardingUrl({
      entity: { name: { familyName: 'Lee' }, addresses: [{ country: 'AUS', longForm: 'Unit 4, 12A Example Street, Sydney NSW 2000' }] },
    });
    const a = ok.entity.addresses![0]!;
    assert.deepEqual(
      [a.unitNumber, a.streetNumber, a.streetName, a.streetType, a.town, a.state, a.postalCode],
      ['4', '12A', 'Example', 'Street', 'Sydney', 'NSW', '2000'],
    );
    const slash = await c.onboardingUrl({
      entity: { addresses: [{ country: 'GBR', longForm: '3/10 Downing Street, London SW1A 2AA, United Kingdom' }] },
    });
    const b = slash.entity.addresses![0]!;
    assert.deepEqual([b.unitNumber, b.streetNumber, b.streetName, b.town, b.postalCode], ['3', '10', 'Downing', 'London', 'SW1A 2AA']);
    for (const longForm of ['somewhere over the rainbow', 'PO Box 12, Sydney', '12 Example St']) {
      await rejects(
        c.onboardingUrl({ entity: { addresses: [{ country: 'AUS', longForm }] } }),
        400,
        'ADDRESS_UNPARSEABLE',
        'entity.addresses.0.longForm',
      );
    }
    await rejects(
      c.onboardingUrl({ entity: { addresses: [{ country: 'AUS', longForm: '10 Downing Street, London SW1A 2AA, United Kingdom' }] } }),
      400,
      'ADDRESS_UNPARSEABLE',
    );
  });

  it('needs a country of birth when a locality is given', async () => {
    const c = client(parent);
    await rejects(
      c.onboardingUrl({ entity: { name: { familyName: 'Lee' }, dateOfBirth: { locality: 'Perth' } } }),
      400,
      'INVALID_ENTITY',
      'entity.dateOfBirth.country',
    );
    const ok = await c.onboardingUrl({ entity: { name: { familyName: 'Lee' }, dateOfBirth: { locality: 'Perth', country: 'au' } } });
    assert.equal(ok.entity.dateOfBirth!.country, 'AUS');
  });

  it('converts country forms to alpha-3 or refuses them without echoing the value', async () => {
    const c = client(parent);
    const ok = await c.onboardingUrl({
      entity: { addresses: [{ country: 'nz' }, { country: '036' }, { country: 'Germany' }, { country: 'FRA' }] },
    });
    assert.deepEqual(
      ok.entity.addresses!.map((a) => a.country),
      ['NZL', 'AUS', 'DEU', 'FRA'],
    );
    const body = await rejects(
      c.onboardingUrl({ entity: { addresses: [{ country: 'Atlantis-XYZ' }] } }),
      400,
      'INVALID_ENTITY',
      'entity.addresses.0.country',
    );
    assert.ok(!JSON.stringify(body).includes('Atlantis'), 'the value is not echoed');
    await rejects(
      c.onboardingUrl({ entity: { identityDocs: [{ idType: 'PASSPORT', country: 'ZZZ' }] } }),
      400,
      undefined,
      'entity.identityDocs.0.country',
    );
  });

  it("keeps an identity document's country once set", async () => {
    const c = client(parent);
    const first = await c.onboardingUrl({
      entity: { name: { familyName: 'Lee' }, identityDocs: [{ idType: 'PASSPORT', country: 'AUS', idNumber: 'P1' }] },
    });
    const entityId = first.entity.entityId!;
    const documentId = first.entity.identityDocs![0]!.documentId!;
    await rejects(
      c.onboardingUrl({ entity: { entityId, identityDocs: [{ documentId, idType: 'PASSPORT', country: 'NZL' }] } }),
      400,
      'INVALID_ENTITY',
      'entity.identityDocs.0.country',
    );
    const same = await c.onboardingUrl({
      entity: { entityId, identityDocs: [{ documentId, idType: 'PASSPORT', country: 'AU', idNumber: 'P2' }] },
    });
    assert.equal(same.entity.identityDocs!.length, 1);
    assert.equal(same.entity.identityDocs![0]!.country, 'AUS');
    assert.equal(same.entity.identityDocs![0]!.idNumber, 'P2');
  });

  it('ignores createdFromScan and manuallyModified on write', async () => {
    const c = client(parent);
    const typed = await c.onboardingUrl({
      entity: { identityDocs: [{ idType: 'LICENCE', country: 'AUS', idNumber: 'L1', createdFromScan: true, manuallyModified: true }] },
    });
    assert.equal(typed.entity.identityDocs![0]!.createdFromScan, false);
    assert.equal(typed.entity.identityDocs![0]!.manuallyModified, false);
    const scanned = await c.onboardingUrl({
      entity: {
        identityDocs: [
          {
            idType: 'LICENCE',
            country: 'AUS',
            idNumber: 'L1',
            createdFromScan: false,
            docScan: [{ scanData: PNG, scanMIME: 'image/png' }],
          },
        ],
      },
    });
    const doc = scanned.entity.identityDocs![0]!;
    assert.equal(doc.createdFromScan, true, 'set by the sandbox, not the caller');
    const edited = await c.onboardingUrl({
      entity: {
        entityId: scanned.entity.entityId,
        identityDocs: [{ documentId: doc.documentId, idType: 'LICENCE', country: 'AUS', idNumber: 'L2', manuallyModified: false }],
      },
    });
    assert.equal(edited.entity.identityDocs![0]!.manuallyModified, true, 'scan-derived data adjusted by hand');
  });

  it('needs entityProfile to name a known profile', async () => {
    const c = client(parent);
    await rejects(c.onboardingUrl({ entity: { entityProfile: 'made_up' } }), 400, 'INVALID_ENTITY', 'entity.entityProfile');
    assert.equal((await c.onboardingUrl({ entity: { entityProfile: 'safe_harbour' } })).entity.entityProfile, 'safe_harbour');
  });

  it('takes scanPageNum from 0 with duplicates and gaps, never below 0', async () => {
    const c = client(parent);
    const ok = await c.onboardingUrl({
      entity: {
        identityDocs: [{ idType: 'PASSPORT', country: 'AUS', docScan: [{ scanPageNum: 0 }, { scanPageNum: 0 }, { scanPageNum: 7 }] }],
      },
    });
    assert.deepEqual(
      ok.entity.identityDocs![0]!.docScan!.map((s) => s.scanPageNum),
      [0, 0, 7],
    );
    await rejects(
      c.onboardingUrl({ entity: { identityDocs: [{ idType: 'PASSPORT', country: 'AUS', docScan: [{ scanPageNum: -1 }] }] } }),
      400,
      'INVALID_REQUEST',
      'entity.identityDocs.0.docScan.0.scanPageNum',
    );
  });

  it('returns scan contents only from the owner’s /full, and never those of a ScanDelete scan', async () => {
    const c = client(childA);
    const link = await c.onboardingUrl({
      entity: {
        name: { familyName: 'Lee' },
        identityDocs: [
          {
            idType: 'PASSPORT',
            country: 'AUS',
            docScan: [
              { scanData: PNG, scanMIME: 'image/png' },
              { scanData: PNG, scanMIME: 'image/png', ScanDelete: true },
            ],
          },
        ],
      },
    });
    assert.ok(link.entity.identityDocs![0]!.docScan!.every((s) => s.scanData === undefined));
    const full = await raw('GET', `/v2/kyc/entity/${link.entity.entityId}/full`, { creds: childA });
    assert.equal(full.status, 200);
    const scans = full.body.entity.identityDocs[0].docScan;
    assert.equal(scans[0].scanData, PNG);
    assert.equal(scans[1].scanData, undefined);
    assert.equal(scans[1].ScanDelete, true, 'metadata is kept');
    for (const creds of [parent, childB, other]) {
      const r = await raw('GET', `/v2/kyc/entity/${link.entity.entityId}/full`, { creds });
      assert.equal(r.status, 404);
    }
  });

  it('refuses bad input with a 400 ErrorObject, never a 500', async () => {
    const cases: [string | object, string][] = [
      ['{not json', 'body'],
      ['', 'body'],
      [{ consent: 'yes' }, 'consent'],
      [{ entity: { name: { givenName: 'Ann' } } }, 'entity.name.familyName'],
      [{ entity: { name: { familyName: '  ' } } }, 'entity.name.familyName'],
      [{ entity: { dateOfBirth: { dateOfBirth: '1990-02-30' } } }, 'entity.dateOfBirth.dateOfBirth'],
      [{ entity: { identityDocs: [{ idType: 'PASSPORT', country: 'AUS', idExpiry: '31/12/2030' }] } }, 'entity.identityDocs.0.idExpiry'],
      [
        { entity: { identityDocs: [{ idType: 'PASSPORT', country: 'AUS', docScan: [{ scanData: 'not base64!' }] }] } },
        'entity.identityDocs.0.docScan.0.scanData',
      ],
      [{ successRedirectURL: 'javascript:alert(1)' }, 'successRedirectURL'],
      [{ errorRedirectURL: '/relative' }, 'errorRedirectURL'],
      [{ sendSMS: true }, 'phoneNumber'],
      [{ sendSMS: true, phoneNumber: 'call me' }, 'phoneNumber'],
      [{ phoneCode: '61' }, 'phoneCode'],
      [[1, 2], 'body'],
    ];
    for (const [body, location] of cases) {
      const r = await raw('POST', '/idv/v2/idvalidate/onboarding-url', { creds: parent, body });
      assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.status}`);
      assertErrorObject(r.body, undefined, location);
    }
  });

  it('refuses a body over 1 MB, and an entity that would grow over 1.5 MB, with 413', async () => {
    const big = 'A'.repeat(1024 * 1024 + 4);
    const r = await raw('POST', '/idv/v2/idvalidate/onboarding-url', {
      creds: parent,
      body: { entity: { identityDocs: [{ idType: 'PASSPORT', country: 'AUS', docScan: [{ scanData: big }] }] } },
    });
    assert.equal(r.status, 413);
    assertErrorObject(r.body, 'BODY_TOO_LARGE');
    const c = client(parent);
    const scan = { scanData: 'A'.repeat(800 * 1024), scanMIME: 'image/png' };
    const first = await c.onboardingUrl({ entity: { identityDocs: [{ idType: 'PASSPORT', country: 'AUS', docScan: [scan] }] } });
    const entityId = first.entity.entityId!;
    const documentId = first.entity.identityDocs![0]!.documentId!;
    await rejects(
      c.onboardingUrl({ entity: { entityId, identityDocs: [{ documentId, idType: 'PASSPORT', country: 'AUS', docScan: [scan] }] } }),
      413,
      'ENTITY_TOO_LARGE',
    );
    await c.onboardingUrl({
      entity: { entityId, identityDocs: [{ documentId, idType: 'PASSPORT', country: 'AUS', docScan: [{ ...scan, ScanDelete: true }] }] },
    });
  });

  it('splits a displayName when no familyName is given', async () => {
    const link = await client(parent).onboardingUrl({ entity: { name: { familyName: '', displayName: 'Mary Jane Watson' } } });
    assert.deepEqual(link.entity.name, { familyName: 'Watson', givenName: 'Mary', middleName: 'Jane', displayName: 'Mary Jane Watson' });
  });

  it('derives the url from the request origin', async () => {
    const r = await raw('POST', '/idv/v2/idvalidate/onboarding-url', { creds: parent, body: person() });
    assert.ok(r.body.url.startsWith(`${BASE}/flow/`));
  });
});

describe('channel header', () => {
  it('is truncated to 64 characters and recorded on the check it creates', async () => {
    const long = 'c'.repeat(100);
    const r = await raw('POST', '/idv/v2/idvalidate/onboarding-url', {
      creds: parent,
      body: person(),
      headers: { 'X-Service-Channel': long },
    });
    assert.equal(r.status, 200);
    const checks = await raw('GET', `/v2/kyc/entity/${r.body.entity.entityId}/checks`, { creds: parent });
    assert.equal(checks.body.checks[0].channel, 'c'.repeat(64));
  });
});

describe('SMS outbox', () => {
  const keys = { 1: 'key-of-visitor-one-0001', 2: 'key-of-visitor-two-0002', 3: 'key-of-visitor-three-03', v: 'key-of-visitor-vvvv-0004' };
  const refs = { 1: '', 2: '', 3: '', v: '' };
  before(async () => {
    for (const k of Object.keys(keys) as (keyof typeof keys)[]) refs[k] = await outboxRef(keys[k]);
  });

  it('records the message instead of texting, and lists it only to the holder of its key, masked', async () => {
    const c = client(parent);
    const link = await c.onboardingUrl({
      ...person(),
      sendSMS: true,
      phoneCode: '+61',
      phoneNumber: '0412 345 678',
      recipientName: 'Ann L',
      senderName: 'Acme Bank',
      messageTemplateId: 'tpl-1',
      customerRef: refs[1],
    });
    await c.onboardingUrl({
      ...person('Other', 'Olga'),
      sendSMS: true,
      phoneCode: '+64',
      phoneNumber: '021 555 999',
      customerRef: refs[2],
    });
    await c.onboardingUrl({ ...person('Quiet'), customerRef: refs[1] }); // no sendSMS: nothing recorded

    const r = await raw('GET', `/outbox?key=${keys[1]}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.messages.length, 1);
    const m = r.body.messages[0];
    assert.deepEqual(Object.keys(m).sort(), ['createdAt', 'link', 'messageTemplateId', 'recipientName', 'senderName', 'text', 'to']);
    assert.equal(m.to, '+61 *******678');
    assert.ok(!JSON.stringify(r.body).includes('412'), 'only the last three digits are shown');
    assert.equal(m.recipientName, 'Ann L');
    assert.equal(m.senderName, 'Acme Bank');
    assert.equal(m.messageTemplateId, 'tpl-1');
    assert.equal(m.link, link.url);
    assert.ok(m.text.includes(link.url));
    assert.ok(!JSON.stringify(r.body).includes('Olga'), "another visitor's message is not listed");

    // Without recipientName the text names nobody (the entity's name stays out of it).
    const other = (await raw('GET', `/outbox?key=${keys[2]}`)).body.messages[0];
    assert.equal(other.recipientName, null);
    assert.ok(other.text.startsWith('Hi, '), other.text);
    assert.ok(!other.text.includes('Olga') && !other.text.includes('Other'), other.text);

    const none = await raw('GET', `/outbox?key=${keys[3]}`);
    assert.deepEqual(none.body, { messages: [] });
  });

  it('answers only to the key: knowing the reference (or a key that hashes to another) reads nothing', async () => {
    for (const path of [
      '/outbox',
      `/outbox?customerRef=${refs[1]}`,
      '/outbox?key=',
      '/outbox?key=short',
      `/outbox?key=${encodeURIComponent(refs[1] + '!')}`,
    ]) {
      const r = await raw('GET', path);
      assert.equal(r.status, 400, path);
      assertErrorObject(r.body, 'INVALID_REQUEST', 'query.key');
    }
    // The reference used as if it were a key hashes to another reference: nothing.
    assert.deepEqual((await raw('GET', `/outbox?key=${refs[1]}`)).body, { messages: [] });
  });

  it('forgets messages after 15 minutes', async () => {
    await client(parent).onboardingUrl({ ...person(), sendSMS: true, phoneNumber: '+61412345678', customerRef: refs.v });
    assert.equal((await raw('GET', `/outbox?key=${keys.v}`)).body.messages.length, 1);
    advanceSandboxClock(14 * 60_000);
    assert.equal((await raw('GET', `/outbox?key=${keys.v}`)).body.messages.length, 1);
    advanceSandboxClock(2 * 60_000);
    assert.equal((await raw('GET', `/outbox?key=${keys.v}`)).body.messages.length, 0);
  });
});
