/**
 * `?include=person` shows an allow-list of the vendor's entity: a vendor's
 * `extraData` (a selfie, OCR values), scans, flags and any field it adds are
 * never passed on, at any depth.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { personFrom } from '../../worker/vendors/idv/person';
import { readFileSync } from 'node:fs';
import { Person } from '../../worker/server-api/schemas';
import { PERSON_FIELDS, type Person as VendorPerson } from '../../worker/vendors/person';
import { openapiDocument } from '../../worker/server-api/openapi';
import type * as z from 'zod/mini';

/** The adapter's `Person` type and `/v1`'s schema are one shape (a compile error otherwise). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const oneShape: Same<VendorPerson, z.output<typeof Person>> = true;

const extra = [{ kvpKey: 'selfie', kvpType: 'general.string', kvpValue: 'data:image/jpeg;base64,SELFIE' }];

const entity = {
  entityId: 'ent-1',
  entityType: 'INDIVIDUAL',
  entityProfile: 'safe_harbour',
  gender: 'F',
  name: { familyName: 'Lovelace', givenName: 'Ada', extraData: extra, vendorNote: 'NOTE' },
  dateOfBirth: { dateOfBirth: '1815-12-10', extraData: extra },
  addresses: [{ addressId: 'a-1', streetName: 'St James Square', town: 'London', country: 'GBR', extraData: extra, geo: { lat: 1 } }],
  identityDocs: [
    {
      documentId: 'd-1',
      idType: 'PASSPORT',
      country: 'GBR',
      idNumber: 'P1234567',
      idExpiry: '2030-01-01',
      docScan: [{ scanDocId: 's-1', scanData: 'SCANDATA', scanMIME: 'image/jpeg' }],
      extraData: [{ kvpKey: 'ocr.mrz', kvpValue: 'OCRVALUE' }],
    },
  ],
  extraData: extra,
  flags: [{ flag: 'pep', value: 1 }],
  organisationData: { registrationDetails: [] },
  biometrics: { face: 'FACE' },
};

describe('the verified person’s allow-list', () => {
  it("the adapter interface's Person is the schema's output, both ways", () => assert.equal(oneShape, true));
  it('passes name, date of birth, addresses and documents’ type, country and number; nothing else', () => {
    const person = personFrom(entity);
    assert.deepEqual(person, {
      entityId: 'ent-1',
      name: { familyName: 'Lovelace', givenName: 'Ada' },
      dateOfBirth: { dateOfBirth: '1815-12-10' },
      addresses: [{ streetName: 'St James Square', town: 'London', country: 'GBR' }],
      identityDocs: [{ idType: 'PASSPORT', country: 'GBR', idNumber: 'P1234567' }],
    });
    const text = JSON.stringify(person);
    for (const leak of ['extraData', 'SELFIE', 'OCRVALUE', 'SCANDATA', 'scanDocId', 'FACE', 'pep', 'NOTE', 'gender'])
      assert.ok(!text.includes(leak), leak);
    assert.ok(Person.safeParse(person).success, 'the OpenAPI document’s schema describes it');
    assert.ok(!Person.safeParse({ ...person, extraData: extra }).success, 'the document allows no extraData');
  });

  it('an entity with nothing on the list is its id only', () => {
    assert.deepEqual(personFrom({ entityId: 'ent-2', extraData: extra, name: { familyName: 7 } as never }), { entityId: 'ent-2' });
  });

  it('is one rule: the idv adapter passes exactly the product’s fields, which the OpenAPI document shows, and keeps no list of its own', () => {
    const every = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, `v-${k}`]));
    const full = personFrom({
      entityId: 'ent-3',
      name: { ...every(PERSON_FIELDS.name), extraData: extra },
      dateOfBirth: every(PERSON_FIELDS.dateOfBirth),
      addresses: [{ ...every(PERSON_FIELDS.address), addressId: 'a-1' }],
      identityDocs: [{ ...every(PERSON_FIELDS.identityDoc), documentId: 'd-1' }],
    } as never);
    assert.deepEqual(Object.keys(full.name!).sort(), [...PERSON_FIELDS.name].sort());
    assert.deepEqual(Object.keys(full.dateOfBirth!).sort(), [...PERSON_FIELDS.dateOfBirth].sort());
    assert.deepEqual(Object.keys(full.addresses![0]!).sort(), [...PERSON_FIELDS.address].sort());
    assert.deepEqual(Object.keys(full.identityDocs![0]!).sort(), [...PERSON_FIELDS.identityDoc].sort());
    assert.ok(Person.safeParse(full).success);
    // The published schema is built from the same lists.
    const schema = (openapiDocument() as any).components.schemas.Person.properties;
    const props = (s: any) =>
      Object.keys((s.items ?? s.anyOf?.find((x: any) => x.type !== 'null') ?? s).properties ?? s.items?.properties).sort();
    assert.deepEqual(props(schema.name), [...PERSON_FIELDS.name].sort());
    assert.deepEqual(props(schema.addresses), [...PERSON_FIELDS.address].sort());
    assert.deepEqual(props(schema.identityDocs), [...PERSON_FIELDS.identityDoc].sort());
    // Written once: the adapter's file spells none of the fields itself.
    const adapterSource = readFileSync(new URL('../../worker/vendors/idv/person.ts', import.meta.url), 'utf8');
    for (const field of ['streetName', 'honourific', 'yearOfBirth', 'idNumber']) assert.ok(!adapterSource.includes(`'${field}'`), field);
  });
});
