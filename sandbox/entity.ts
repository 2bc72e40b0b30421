/**
 * The data-model rules of spec section 2, applied when an entity is created
 * or updated (onboarding link, result with OCR data): server-assigned UUIDs,
 * extraData overwrite-by-name / add-new, yearOfBirth from dateOfBirth,
 * locality needs country, countries converted to alpha-3 (or refused), an
 * identity document's country fixed once set, read-only flags ignored on
 * write, known entityProfile, address longForm broken into parts (or refused),
 * ScanDelete honoured, scanData never in answers.
 */
import type { Address, Entity, IdentityDocument, KeyValuePair, PersonalName, ScannedDocument } from '../worker/vendors/idv/schemas';
import { toAlpha3 } from './countries';
import { invalid, SandboxError, type Issue } from './errors';
import { isCalendarDate } from '../rules/date-of-birth';

export const uuid = (): string => crypto.randomUUID();

/** extraData semantics: values with an existing name are overwritten, new names are added. */
export function mergeKvps(existing: KeyValuePair[] | undefined, incoming: KeyValuePair[] | undefined): KeyValuePair[] | undefined {
  if (!incoming) return existing;
  const out = (existing ?? []).map((k) => ({ ...k }));
  for (const kv of incoming) {
    const at = kv.kvpKey === undefined ? -1 : out.findIndex((o) => o.kvpKey === kv.kvpKey);
    if (at >= 0) out[at] = { ...out[at], ...kv };
    else out.push({ ...kv });
  }
  return out;
}

class Issues {
  list: Issue[] = [];
  add(issueLocation: string, issue: string) {
    this.list.push({ issue, issueLocation });
  }
  country(value: string | undefined, at: string): string | undefined {
    if (value === undefined) return undefined;
    const a3 = toAlpha3(value);
    if (!a3) this.add(at, 'must be an ISO 3166-1 country (alpha-3 preferred; alpha-2, numeric and English names are converted)');
    return a3 ?? value;
  }
  date(value: string | undefined, at: string) {
    if (value !== undefined && !isCalendarDate(value)) this.add(at, 'must be a real date written YYYY-MM-DD');
  }
}

// ---------------------------------------------------------------- names

function splitDisplayName(display: string): Pick<PersonalName, 'givenName' | 'middleName' | 'familyName'> | undefined {
  const parts = display.trim().split(/\s+/).filter(Boolean);
  const first = parts[0];
  const last = parts.at(-1);
  if (first === undefined || last === undefined) return undefined;
  if (parts.length === 1) return { familyName: first };
  return {
    givenName: first,
    middleName: parts.length > 2 ? parts.slice(1, -1).join(' ') : undefined,
    familyName: last,
  };
}

function applyName(input: PersonalName, existing: PersonalName | undefined, issues: Issues, at: string): PersonalName {
  const name: PersonalName = { ...existing, ...input };
  for (const k of ['familyName', 'givenName', 'middleName', 'honourific', 'displayName'] as const) {
    if (typeof name[k] === 'string') name[k] = name[k].trim().replace(/\s+/g, ' ');
    if (name[k] === '' && k !== 'familyName') delete name[k];
  }
  if (!name.familyName && name.displayName) {
    const split = splitDisplayName(name.displayName);
    if (split) {
      name.familyName = split.familyName;
      if (!name.givenName && split.givenName) name.givenName = split.givenName;
      if (!name.middleName && split.middleName) name.middleName = split.middleName;
    }
  }
  if (!name.familyName) issues.add(`${at}.familyName`, 'is required');
  return name;
}

// ---------------------------------------------------------------- addresses

const STREET_TYPES = new Set(
  (
    'street st road rd avenue ave av boulevard blvd lane ln drive dr court ct place pl parade pde terrace tce crescent cres ' +
    'circuit cct highway hwy way close cl square sq esplanade esp grove gr mews row walk alley parkway pkwy quay wharf rise'
  ).split(' '),
);
const STREET =
  /^(?:(?:unit|apt|apartment|flat|suite)\s+([0-9a-z]+)\s*,?\s*)?(?:([0-9a-z]+)\s*\/\s*)?(\d+[a-z]?(?:-\d+[a-z]?)?)\s+(.+?)\s+([a-z]+)\.?$/i;
const LOCALITY = /^([\p{L}][\p{L} .'-]*?)(?:\s+([A-Z]{2,3}))?(?:\s+(\d{4,5}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}))?$/u;

export interface ParsedLongForm {
  buildingName?: string;
  unitNumber?: string;
  streetNumber: string;
  streetName: string;
  streetType: string;
  suburb?: string;
  town: string;
  state?: string;
  postalCode?: string;
  country?: string;
}

/**
 * Breaks `longForm` into parts. Understood form (commas separate parts):
 * `[building or unit,] [unit/]number street-name street-type, [suburb,] town [STATE] [postcode][, country]`.
 * Returns undefined when it cannot (the spec: an error).
 */
export function parseLongForm(longForm: string): ParsedLongForm | undefined {
  const parts = longForm
    .split(',')
    .map((p) => p.trim().replace(/\s+/g, ' '))
    .filter(Boolean);
  let country: string | undefined;
  if (parts.length >= 3) {
    country = toAlpha3(parts[parts.length - 1]!);
    if (country) parts.pop();
  }
  const streetAt = parts.findIndex((p) => {
    const m = STREET.exec(p);
    return m !== null && STREET_TYPES.has(m[5]!.toLowerCase());
  });
  if (streetAt < 0 || streetAt === parts.length - 1) return undefined;
  const localityParts = parts.slice(streetAt + 1);
  if (localityParts.length > 2) return undefined;
  const m = STREET.exec(parts[streetAt]!)!;
  const loc = LOCALITY.exec(localityParts[localityParts.length - 1]!);
  if (!loc) return undefined;
  const before = parts.slice(0, streetAt);
  const out: ParsedLongForm = {
    streetNumber: m[3]!,
    streetName: m[4]!,
    streetType: m[5]!,
    town: loc[1]!.trim(),
  };
  const unit = m[1] ?? m[2];
  if (unit) out.unitNumber = unit;
  if (before.length) {
    const unitOnly = before.length === 1 ? /^(?:unit|apt|apartment|flat|suite)\s+([0-9a-z]+)$/i.exec(before[0]!) : null;
    if (unitOnly && !out.unitNumber) out.unitNumber = unitOnly[1];
    else out.buildingName = before.join(', ');
  }
  if (localityParts.length === 2) out.suburb = localityParts[0];
  if (loc[2]) out.state = loc[2];
  if (loc[3]) out.postalCode = loc[3];
  if (country) out.country = country;
  return out;
}

/**
 * Applies a list of sub-records by id (addresses, documents, scans): an item
 * naming an existing id updates that record, an item without an id is added,
 * an unknown id is an issue.
 */
function mergeById<T extends object, K extends keyof T & string>(
  existing: T[] | undefined,
  incoming: T[],
  idKey: K,
  owner: string,
  issues: Issues,
  at: string,
  apply: (input: T, before: T | undefined, at: string) => T,
): T[] {
  const list = (existing ?? []).map((x) => ({ ...x }));
  incoming.forEach((item, i) => {
    const itemAt = `${at}.${i}`;
    const id = item[idKey];
    const before = id ? list.findIndex((x) => x[idKey] === id) : -1;
    if (id && before < 0) {
      issues.add(`${itemAt}.${idKey}`, `must name ${owner} (leave it out to add one)`);
      return;
    }
    const applied = apply(item, before >= 0 ? list[before] : undefined, itemAt);
    if (before >= 0) list[before] = applied;
    else list.push(applied);
  });
  return list;
}

function applyAddress(input: Address, existing: Address | undefined, issues: Issues, at: string): Address {
  const addr: Address = { ...existing, ...input, extraData: mergeKvps(existing?.extraData, input.extraData) };
  if (!addr.extraData) delete addr.extraData;
  addr.addressId = existing?.addressId ?? uuid();
  addr.country = issues.country(addr.country, `${at}.country`) ?? addr.country;
  issues.date(input.startDate, `${at}.startDate`);
  issues.date(input.endDate, `${at}.endDate`);
  if (input.longForm !== undefined) {
    const parsed = parseLongForm(input.longForm);
    if (!parsed) {
      issues.add(`${at}.longForm`, 'could not be broken into parts; give the address fields separately');
    } else if (parsed.country && addr.country && parsed.country !== addr.country) {
      issues.add(`${at}.longForm`, 'names a different country than address.country');
    } else {
      for (const [k, v] of Object.entries(parsed) as [keyof ParsedLongForm, string][]) {
        if (k === 'country') continue;
        if (input[k] === undefined) addr[k] = v;
      }
    }
  }
  return addr;
}

// ---------------------------------------------------------------- documents

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MIME_EXT: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/heic': 'heic',
  'image/gif': 'gif',
  'image/tiff': 'tiff',
  'application/pdf': 'pdf',
};

function applyScan(input: ScannedDocument, existing: ScannedDocument | undefined, issues: Issues, at: string): ScannedDocument {
  const scan: ScannedDocument = { ...existing, ...input };
  scan.scanDocId = existing?.scanDocId ?? uuid();
  if (input.scanData !== undefined && (input.scanData.length % 4 !== 0 || !BASE64.test(input.scanData))) {
    issues.add(`${at}.scanData`, 'must be base64');
  }
  if (!scan.scanFilename && scan.scanMIME) {
    scan.scanFilename = `${scan.scanDocId}.${MIME_EXT[scan.scanMIME.toLowerCase()] ?? 'bin'}`;
  }
  // ScanDelete: the original is removed after processing. The sandbox's
  // "background task" runs at once: the bytes are never stored.
  if (scan.ScanDelete) delete scan.scanData;
  return scan;
}

const DOC_DATA_FIELDS = ['idType', 'idSubType', 'region', 'idNumber', 'idIssued', 'idExpiry'] as const;

function applyDocument(input: IdentityDocument, existing: IdentityDocument | undefined, issues: Issues, at: string): IdentityDocument {
  // createdFromScan and manuallyModified are read-only: attempts to set them are ignored.
  const { createdFromScan: _c, manuallyModified: _m, docScan: scansIn, ...rest } = input;
  const doc: IdentityDocument = { ...existing, ...rest, extraData: mergeKvps(existing?.extraData, input.extraData) };
  if (!doc.extraData) delete doc.extraData;
  doc.documentId = existing?.documentId ?? uuid();
  const country = issues.country(input.country, `${at}.country`);
  if (existing && country && existing.country !== country) {
    issues.add(`${at}.country`, 'cannot be changed once set');
  }
  doc.country = existing?.country ?? country ?? input.country;
  issues.date(input.idIssued, `${at}.idIssued`);
  issues.date(input.idExpiry, `${at}.idExpiry`);

  const scans = mergeById(
    existing?.docScan,
    scansIn ?? [],
    'scanDocId',
    'a scan of this document',
    issues,
    `${at}.docScan`,
    (s, before, sAt) => applyScan(s, before, issues, sAt),
  );
  if (scans.length) doc.docScan = scans;

  if (existing) {
    doc.createdFromScan = existing.createdFromScan ?? false;
    const changed = DOC_DATA_FIELDS.some((k) => input[k] !== undefined && input[k] !== existing[k]);
    doc.manuallyModified = (existing.manuallyModified ?? false) || (doc.createdFromScan && changed);
  } else {
    doc.createdFromScan = (scansIn ?? []).some((s) => typeof s.scanData === 'string' && s.scanData.length > 0);
    doc.manuallyModified = false;
  }
  return doc;
}

// ---------------------------------------------------------------- entity

export interface ApplyOptions {
  /** Names `entityProfile` may take (the customer's configuration). */
  profiles: string[];
  /** Consent given: attach consent.general / consent.docs. */
  consent?: boolean;
  /** Prefix of every issueLocation, e.g. `entity`. */
  at?: string;
}

/** Applies `input` to `existing` (or creates), enforcing section 2. Throws a 400 SandboxError listing every problem. */
export function applyEntity(input: Entity, existing: Entity | undefined, options: ApplyOptions): Entity {
  const at = options.at ?? 'entity';
  const issues = new Issues();
  const { addresses: addrIn, identityDocs: docsIn, extraData: kvIn, flags: flagsIn, name: nameIn, dateOfBirth: dobIn, ...rest } = input;
  const entity: Entity = { ...existing, ...rest };
  entity.entityId = existing?.entityId ?? uuid();

  if (input.entityProfile !== undefined && !options.profiles.includes(input.entityProfile)) {
    issues.add(`${at}.entityProfile`, 'must name a known profile');
  }

  if (nameIn) entity.name = applyName(nameIn, existing?.name, issues, `${at}.name`);

  if (dobIn) {
    const dob = { ...existing?.dateOfBirth, ...dobIn };
    if (dobIn.dateOfBirth !== undefined) {
      if (isCalendarDate(dobIn.dateOfBirth)) dob.yearOfBirth = dobIn.dateOfBirth.slice(0, 4);
      else issues.add(`${at}.dateOfBirth.dateOfBirth`, 'must be a real date written YYYY-MM-DD');
    } else if (dobIn.yearOfBirth !== undefined && !/^(\d{4}|unknown)$/.test(dobIn.yearOfBirth)) {
      issues.add(`${at}.dateOfBirth.yearOfBirth`, 'must be a year (YYYY) or "unknown"');
    }
    if (dobIn.country !== undefined) dob.country = issues.country(dobIn.country, `${at}.dateOfBirth.country`);
    if (dob.locality && !dob.country) issues.add(`${at}.dateOfBirth.country`, 'is required when locality is given');
    entity.dateOfBirth = dob;
  }

  if (addrIn) {
    entity.addresses = mergeById(
      existing?.addresses,
      addrIn,
      'addressId',
      'an address of this entity',
      issues,
      `${at}.addresses`,
      (a, before, aAt) => applyAddress(a, before, issues, aAt),
    );
  }

  if (docsIn) {
    entity.identityDocs = mergeById(
      existing?.identityDocs,
      docsIn,
      'documentId',
      'a document of this entity',
      issues,
      `${at}.identityDocs`,
      (d, before, dAt) => applyDocument(d, before, issues, dAt),
    );
  }

  let extra = mergeKvps(existing?.extraData, kvIn);
  if (options.consent) {
    extra = mergeKvps(extra, [
      { kvpKey: 'consent.general', kvpType: 'general.bool', kvpValue: 'true' },
      { kvpKey: 'consent.docs', kvpType: 'general.bool', kvpValue: 'true' },
    ]);
  }
  if (extra) entity.extraData = extra;

  if (flagsIn) {
    const flags = (existing?.flags ?? []).map((f) => ({ ...f }));
    for (const f of flagsIn) {
      const before = f.flag === undefined ? -1 : flags.findIndex((x) => x.flag === f.flag);
      if (before >= 0) flags[before] = { ...flags[before], ...f };
      else flags.push({ ...f });
    }
    entity.flags = flags;
  }

  if (issues.list.length) {
    const addressProblem = issues.list.find((i) => i.issueLocation.endsWith('.longForm'));
    if (addressProblem) {
      throw new SandboxError(400, 'ADDRESS_UNPARSEABLE', 'An address longForm could not be broken down or disambiguated.', issues.list);
    }
    throw invalid(issues.list, 'The entity breaks the data-model rules.', 'INVALID_ENTITY');
  }
  return entity;
}

/** The entity as answers carry it: scans without their contents unless asked and allowed. */
export function publicEntity(entity: Entity, withScanData = false): Entity {
  const copy = structuredClone(entity);
  for (const doc of copy.identityDocs ?? []) {
    for (const scan of doc.docScan ?? []) {
      if (!withScanData || scan.ScanDelete) delete scan.scanData;
    }
  }
  return copy;
}
