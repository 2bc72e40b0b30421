/**
 * What `GET /v1/verifications/{id}?include=person` and entity search show of
 * the idv vendor's entity: an allow-list, never the entity as it came. Name, date of birth,
 * addresses, and each identity document's type, country and number; never
 * `extraData` (a vendor may put a selfie or OCR values there), scans, flags,
 * organisation data or any field a vendor adds later.
 */
import { PERSON_FIELDS, type Person } from '../person';
import type { Entity } from './schemas';

// The product's allow-list is the one list: the vendor's entity uses the same names for these fields.
const { name: NAME, dateOfBirth: DATE_OF_BIRTH, address: ADDRESS, identityDoc: IDENTITY_DOC } = PERSON_FIELDS;

/** The listed fields of `from` that are strings; undefined when none is. */
function pick<K extends string>(from: unknown, keys: readonly K[]): Partial<Record<K, string>> | undefined {
  if (!from || typeof from !== 'object') return undefined;
  const out: Partial<Record<K, string>> = {};
  for (const k of keys) {
    const v = (from as Record<string, unknown>)[k];
    if (typeof v === 'string') out[k] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

const pickAll = <K extends string>(list: unknown, keys: readonly K[]) =>
  Array.isArray(list) ? list.map((item) => pick(item, keys)).filter((x) => x !== undefined) : undefined;

export function personFrom(entity: Entity & { entityId: string }): Person {
  const name = pick(entity.name, NAME);
  const dateOfBirth = pick(entity.dateOfBirth, DATE_OF_BIRTH);
  const addresses = pickAll(entity.addresses, ADDRESS);
  const identityDocs = pickAll(entity.identityDocs, IDENTITY_DOC);
  return {
    entityId: entity.entityId,
    ...(name?.familyName !== undefined ? { name: name as Person['name'] } : {}),
    ...(dateOfBirth ? { dateOfBirth } : {}),
    ...(addresses?.length ? { addresses: addresses } : {}),
    ...(identityDocs?.length ? { identityDocs: identityDocs } : {}),
  };
}
