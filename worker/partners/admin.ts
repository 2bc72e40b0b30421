/**
 * Writing the registry: what `npm run partners` does, over any store with
 * get/put/delete/list (wrangler's KV commands in the CLI, a KV binding in
 * tests). Never part of the worker bundle. Input is validated before anything
 * is written; secrets are sealed here, so only sealed values leave the
 * operator's process; nothing returned for display holds a secret.
 */
import type { JWK } from 'jose';
import {
  exactOrigin,
  FAILOVER_MODES,
  originKey,
  PARTNER_ID,
  partnerKey,
  PartnerRecord,
  RESERVED_PARTNER_IDS,
  SEALED_FIELDS,
  SEALING_PUBLIC_KEY,
  serverKeyIndexKey,
  type FailoverMode,
  type SealedField,
} from './partner';
import { webhookUrlProblem } from '../../rules/webhook-url';
import { isVendorId, VENDOR_IDS } from '../vendors/adapter';
import { zodEnglish } from '../lib/errors';
import { seal } from './seal';
import { sealedKid } from './sealing';

export interface RegistryStore {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  list(prefix: string): Promise<string[]>;
}

/** What an operator gives for a partner; secrets in plain text, sealed before storing. */
export interface PartnerInput {
  displayName?: string;
  origins?: string[];
  childId?: string;
  apiKey?: string;
  flowId?: string | null;
  smsSenderName?: string | null;
  smsTemplateId?: string | null;
  /** ISO 3166 alpha-2 (`DE`, any case): the widget's country code when its language names no region. */
  defaultCountry?: string | null;
  /** Whole years (1–120): the youngest person it may verify; null clears it. */
  minAge?: number | null;
  turnstileSecret?: string | null;
  webhookUrl?: string | null;
  webhookSecret?: string | null;
  /** SHA-256 (hex) of its `/v1` server keys, newest first (at most two); never the keys. */
  serverKeyHashes?: string[];
  /** Its vendors in priority order (`idv`, `stripe`); null clears it (the deployment's KYC_VENDOR again). */
  vendors?: string[] | null;
  /** `off` or `before_start`; null clears it (the deployment's VENDOR_FAILOVER again). */
  failover?: string | null;
}

export class InputError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'InputError';
  }
}

const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/;

/** The public sealing key stored in the registry, if any. */
export async function storedPublicKey(store: RegistryStore): Promise<JWK | undefined> {
  const raw = await store.get(SEALING_PUBLIC_KEY);
  return raw ? (JSON.parse(raw) as JWK) : undefined;
}

export async function readRecord(store: RegistryStore, id: string): Promise<PartnerRecord | undefined> {
  const raw = await store.get(partnerKey(id));
  if (!raw) return undefined;
  const parsed = PartnerRecord.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new InputError([`the stored record of ${id} is not valid`]);
  return parsed.data;
}

/**
 * Builds the record for `id` from `input` over `previous` (update) or from
 * nothing (add), sealing each given secret to `publicKey`. Throws InputError
 * naming every problem.
 */
export async function buildRecord(
  id: string,
  input: PartnerInput,
  publicKey: JWK,
  options: { sandbox: boolean; previous?: PartnerRecord; now?: Date },
): Promise<PartnerRecord> {
  const problems: string[] = [];
  if (!PARTNER_ID.test(id)) problems.push('partnerId: must be lower-case letters, digits and dashes (at most 63)');
  if (RESERVED_PARTNER_IDS.includes(id)) problems.push(`partnerId: "${id}" is reserved for the worker's own partners`);
  const prev = options.previous;
  const origins = input.origins?.map((o) => o.trim());
  if (origins) {
    if (!origins.length) problems.push('origins: needs at least one origin');
    for (const o of origins) {
      if (!exactOrigin(o)) problems.push(`origins: "${o}" is not an origin such as https://shop.example`);
    }
  }
  if (input.webhookUrl) {
    const problem = webhookUrlProblem(input.webhookUrl, options.sandbox);
    if (problem) problems.push(`webhookUrl: ${problem}`);
  }
  if (input.webhookSecret && !WEBHOOK_SECRET.test(input.webhookSecret))
    problems.push('webhookSecret: must be whsec_ followed by base64 (at least 24 bytes)');
  if (input.apiKey !== undefined && !input.apiKey.trim()) problems.push('apiKey: must not be empty');
  if (input.serverKeyHashes && (input.serverKeyHashes.length > 2 || input.serverKeyHashes.some((h) => !/^[0-9a-f]{64}$/.test(h))))
    problems.push('serverKeyHashes: at most two SHA-256 hashes in hex');
  if (input.childId !== undefined && !input.childId.trim()) problems.push('childId: must not be empty');
  const vendors =
    input.vendors === null ? undefined : (input.vendors?.map((v) => v.trim().toLowerCase()) ?? prev?.vendors?.map((e) => e.vendor));
  for (const v of vendors ?? []) if (!isVendorId(v)) problems.push(`vendors: "${v}" is not a vendor (${VENDOR_IDS.join(', ')})`);
  if (vendors && new Set(vendors).size !== vendors.length) problems.push('vendors: names a vendor twice');
  if (vendors && !vendors.length) problems.push('vendors: needs at least one vendor');
  const failover = input.failover === null ? undefined : (input.failover?.trim().toLowerCase() ?? prev?.failover);
  if (failover !== undefined && !(FAILOVER_MODES as readonly string[]).includes(failover))
    problems.push('failover: must be off or before_start');
  // Without its own vendors the deployment's KYC_VENDOR decides whether there is a second one.
  else if (failover === 'before_start' && vendors && vendors.length < 2) problems.push('failover: before_start needs a second vendor');
  if (!prev) {
    if (!input.displayName) problems.push('displayName: is required');
    if (!origins) problems.push('origins: is required');
    if (!input.childId) problems.push('childId: is required');
    if (!input.apiKey) problems.push('apiKey: is required');
  }
  const webhookUrl = input.webhookUrl === null ? undefined : (input.webhookUrl ?? prev?.webhookUrl);
  const webhookSecretSet = input.webhookSecret === null ? false : input.webhookSecret !== undefined || prev?.webhookSecret !== undefined;
  if (webhookUrl && !webhookSecretSet) problems.push('webhookSecret: is required with a webhook URL');
  if (problems.length) throw new InputError(problems);

  const sealIf = async (field: SealedField, value: string | null | undefined): Promise<string | undefined> => {
    if (value === null) return undefined;
    if (value === undefined) return prev?.[field];
    return seal(publicKey, id, field, value.trim());
  };
  const keep = (value: string | null | undefined, previous: string | undefined) => (value === null ? undefined : value?.trim() || previous);
  const record: PartnerRecord = {
    v: 1,
    partnerId: id,
    displayName: input.displayName?.trim() ?? prev!.displayName,
    origins: origins ? [...new Set(origins.map((o) => exactOrigin(o)!))] : prev!.origins,
    childId: input.childId?.trim() ?? prev!.childId,
    apiKey: (await sealIf('apiKey', input.apiKey))!,
    ...opt('flowId', keep(input.flowId, prev?.flowId)),
    ...opt('smsSenderName', keep(input.smsSenderName, prev?.smsSenderName)),
    ...opt('smsTemplateId', keep(input.smsTemplateId, prev?.smsTemplateId)),
    ...opt('defaultCountry', keep(input.defaultCountry?.toUpperCase(), prev?.defaultCountry)),
    ...opt('minAge', input.minAge === null ? undefined : (input.minAge ?? prev?.minAge)),
    ...opt('turnstileSecret', await sealIf('turnstileSecret', input.turnstileSecret)),
    ...opt('webhookUrl', webhookUrl),
    ...opt('webhookSecret', await sealIf('webhookSecret', input.webhookSecret)),
    ...opt('serverKeyHashes', input.serverKeyHashes ?? prev?.serverKeyHashes),
    ...opt(
      'vendors',
      vendors?.filter(isVendorId).map((vendor) => ({ vendor })),
    ),
    ...opt('failover', failover as FailoverMode | undefined),
    updatedAt: (options.now ?? new Date()).toISOString(),
  };
  const checked = PartnerRecord.safeParse(record, { error: zodEnglish }); // zod/mini: the English texts are ours
  if (!checked.success) throw new InputError(checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return checked.data;
}

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/**
 * Writes a record and its origin index. An origin another partner holds is
 * refused. Order matters for readers in between: the record first, then the
 * new origins; origins it no longer lists are removed last (the worker checks
 * the record, so a stale index entry grants nothing).
 */
export async function writeRecord(store: RegistryStore, record: PartnerRecord, previous?: PartnerRecord): Promise<void> {
  const taken: string[] = [];
  for (const o of record.origins) {
    const owner = await store.get(originKey(o));
    if (owner && owner !== record.partnerId) {
      const other = await readRecord(store, owner).catch(() => undefined);
      if (other?.origins.includes(o)) taken.push(`origins: ${o} belongs to partner ${owner}`);
    }
  }
  if (taken.length) throw new InputError(taken);
  await store.put(partnerKey(record.partnerId), JSON.stringify(record));
  for (const o of record.origins) await store.put(originKey(o), record.partnerId);
  for (const h of record.serverKeyHashes ?? []) await store.put(serverKeyIndexKey(h), record.partnerId);
  for (const o of previous?.origins ?? []) if (!record.origins.includes(o)) await store.delete(originKey(o));
  // A dropped server key stops at once (the worker checks the record too).
  for (const h of previous?.serverKeyHashes ?? []) if (!record.serverKeyHashes?.includes(h)) await store.delete(serverKeyIndexKey(h));
}

/** Removes a partner: its origins first (so it stops resolving), then its record. */
export async function removeRecord(store: RegistryStore, id: string): Promise<boolean> {
  const record = await readRecord(store, id);
  if (!record) return false;
  for (const o of record.origins) {
    if ((await store.get(originKey(o))) === id) await store.delete(originKey(o));
  }
  for (const h of record.serverKeyHashes ?? []) await store.delete(serverKeyIndexKey(h));
  await store.delete(partnerKey(id));
  return true;
}

/** A record as it may be shown: secrets only as "set (sealed to <kid>)". */
export function describe(record: PartnerRecord): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    if (k === 'v') continue;
    if (k === 'serverKeyHashes') shown.serverKeys = `${(v as string[]).length} (SHA-256 only)`;
    else
      shown[k] =
        (SEALED_FIELDS as readonly string[]).includes(k) && typeof v === 'string'
          ? `set (sealed to ${sealedKid(v) ?? 'an unknown key'})`
          : v;
  }
  return shown;
}
