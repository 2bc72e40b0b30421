/**
 * Entity search (spec 4.3): who is a candidate, and a deterministic
 * confidence score from 0 to 100. docs/sandbox.md documents the weights.
 *
 * Candidates: visible entities whose normalised family name equals the
 * criteria's, or that hold an identity document equal to one in the criteria
 * (same idType, country and normalised idNumber). The rest only scores.
 */
import type { Address, Entity, IdentityDocument } from '../worker/vendors/idv/schemas';
import { toAlpha3 } from './countries';

export const WEIGHTS = {
  familyName: 30,
  givenName: 20,
  givenNameVariant: 15,
  givenNameInitial: 8,
  middleName: 5,
  middleNameInitial: 3,
  dateOfBirth: 20,
  yearOfBirth: 8,
  address: 10,
  document: 15,
} as const;

/** Lower case, accents removed, only letters kept (spaces, hyphens and apostrophes dropped). */
export function normaliseName(value: string | undefined): string {
  return (value ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}]/gu, '');
}

export function normaliseIdNumber(value: string | undefined): string {
  return (value ?? '').toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** Common given-name variants: each group's names match each other. */
const VARIANT_GROUPS = [
  'william bill billy will willy liam',
  'robert bob bobby rob robbie bert',
  'elizabeth liz lizzie beth betty eliza libby',
  'katherine catherine kathryn kate katie kathy cathy kat',
  'margaret maggie meg peggy marge',
  'michael mike mick mickey',
  'james jim jimmy jamie',
  'john jack johnny jon',
  'jonathan jon jonny',
  'richard rick ricky dick rich',
  'alexander alex sasha xander',
  'alexandra alex sasha lexi',
  'christopher chris kit',
  'christine chris chrissy tina',
  'thomas tom tommy',
  'daniel dan danny',
  'joseph joe joey',
  'edward ed eddie ted teddy ned',
  'anthony tony',
  'stephen steven steve',
  'matthew matt',
  'andrew andy drew',
  'nicholas nick nicky',
  'benjamin ben benny',
  'samuel sam sammy',
  'samantha sam sammy',
  'charles charlie chuck chas',
  'patricia pat patty trish',
  'patrick pat paddy',
  'susan sue susie',
  'deborah debbie deb',
  'rebecca becky bec',
  'victoria vicky tori',
  'jennifer jen jenny',
  'jessica jess jessie',
  'timothy tim timmy',
  'peter pete',
  'david dave davey',
  'gregory greg',
  'kenneth ken kenny',
  'ronald ron ronnie',
  'donald don donnie',
  'lawrence larry laurie',
  'frederick fred freddie',
  'henry harry hank',
  'mohammed muhammad mohamed mohammad',
  'ann anne anna annie hannah',
  'mary molly polly mae',
  'sarah sara sally',
];
const VARIANTS = new Map<string, Set<string>>();
for (const group of VARIANT_GROUPS) {
  const names = group.split(' ');
  for (const n of names) {
    const set = VARIANTS.get(n) ?? new Set<string>();
    for (const m of names) if (m !== n) set.add(m);
    VARIANTS.set(n, set);
  }
}

export function nameVariants(a: string, b: string): boolean {
  return VARIANTS.get(a)?.has(b) ?? false;
}

function partScore(a: string | undefined, b: string | undefined, full: number, variant: number, initial: number): number {
  const x = normaliseName(a);
  const y = normaliseName(b);
  if (!x || !y) return 0;
  if (x === y) return full;
  if (variant && nameVariants(x, y)) return variant;
  if ((x.length === 1 || y.length === 1) && x[0] === y[0]) return initial;
  return 0;
}

function country(value: string | undefined): string | undefined {
  return value === undefined ? undefined : (toAlpha3(value) ?? value.toUpperCase());
}

function street(a: Address): string {
  return normaliseIdNumber(`${a.streetNumber ?? ''}${a.streetName ?? ''}`);
}

/** 10 points at most: same country 2, same postal code 4, same street number and name 4. */
function addressScore(criteria: Address[] | undefined, stored: Address[] | undefined): number {
  let best = 0;
  for (const c of criteria ?? []) {
    for (const s of stored ?? []) {
      if (country(c.country) !== country(s.country)) continue;
      let score = 2;
      if (c.postalCode && s.postalCode && normaliseIdNumber(c.postalCode) === normaliseIdNumber(s.postalCode)) score += 4;
      if (street(c) && street(c) === street(s)) score += 4;
      best = Math.max(best, score);
    }
  }
  return Math.min(best, WEIGHTS.address);
}

/** The minimum criteria of a document search: idType, country and idNumber. */
export function searchableDocument(d: IdentityDocument): boolean {
  return Boolean(d.idType.trim() && d.country.trim() && normaliseIdNumber(d.idNumber));
}

function sameDocument(c: IdentityDocument, s: IdentityDocument): boolean {
  return (
    searchableDocument(c) &&
    c.idType.trim().toUpperCase() === s.idType.trim().toUpperCase() &&
    country(c.country) === country(s.country) &&
    normaliseIdNumber(c.idNumber) === normaliseIdNumber(s.idNumber)
  );
}

function documentMatch(criteria: Entity, stored: Entity): boolean {
  return (criteria.identityDocs ?? []).some((c) => (stored.identityDocs ?? []).some((s) => sameDocument(c, s)));
}

export function isCandidate(criteria: Entity, stored: Entity): boolean {
  const family = normaliseName(criteria.name?.familyName);
  return (family !== '' && family === normaliseName(stored.name?.familyName)) || documentMatch(criteria, stored);
}

function yearOf(e: Entity): string | undefined {
  const dob = e.dateOfBirth;
  if (dob?.dateOfBirth && /^\d{4}-/.test(dob.dateOfBirth)) return dob.dateOfBirth.slice(0, 4);
  return dob?.yearOfBirth && /^\d{4}$/.test(dob.yearOfBirth) ? dob.yearOfBirth : undefined;
}

/** Deterministic confidence, 0–100. */
export function score(criteria: Entity, stored: Entity): number {
  let total = 0;
  const family = normaliseName(criteria.name?.familyName);
  if (family && family === normaliseName(stored.name?.familyName)) total += WEIGHTS.familyName;
  total += partScore(
    criteria.name?.givenName,
    stored.name?.givenName,
    WEIGHTS.givenName,
    WEIGHTS.givenNameVariant,
    WEIGHTS.givenNameInitial,
  );
  total += partScore(criteria.name?.middleName, stored.name?.middleName, WEIGHTS.middleName, 0, WEIGHTS.middleNameInitial);
  const cDob = criteria.dateOfBirth?.dateOfBirth;
  if (cDob && cDob === stored.dateOfBirth?.dateOfBirth) total += WEIGHTS.dateOfBirth;
  else if (yearOf(criteria) && yearOf(criteria) === yearOf(stored)) total += WEIGHTS.yearOfBirth;
  total += addressScore(criteria.addresses, stored.addresses);
  if (documentMatch(criteria, stored)) total += WEIGHTS.document;
  return Math.min(total, 100);
}
