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
  STRIPE_SEALED_FIELDS,
  vendorEntries,
  type FailoverMode,
  type IdvEntry,
  type SealedField,
  type StripeEntry,
  type VendorEntry,
} from './partner';
import { webhookUrlProblem } from '../../rules/webhook-url';
import { isVendorId, VENDOR_IDS, type VendorId } from '../vendors/adapter';
import { partnerStripeKeyProblem } from '../vendors/settings';
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
  /** Its own Stripe key (`sk_…`/`rk_…`, the deployment's mode), sealed; needs stripe among its `vendors`; null clears it (the deployment's STRIPE_SECRET_KEY again). */
  stripeSecretKey?: string | null;
  /** The signing secret of its Stripe endpoint (`whsec_…`), sealed; null clears it (the deployment's STRIPE_WEBHOOK_SECRET again). */
  stripeWebhookSecret?: string | null;
}

/**
 * What `npm run partners` knows of the deployment a record is for, from its
 * settings (the worker judges what the CLI cannot see: it refuses a record
 * whose Stripe key is of the other mode).
 */
export interface DeploymentVendors {
  /** KYC_VENDOR: the vendors of a record without its own. */
  order: readonly VendorId[];
  /** Whether the deployment has a Stripe key of its own (STRIPE_SECRET_KEY, or the double's); undefined: cannot tell. */
  stripeKey: boolean | undefined;
  /** Whether Stripe is the double there. */
  stripeDouble: boolean;
  /** Whether its outcomes are real (one deployment is one mode); undefined: cannot tell. */
  live: boolean | undefined;
}

/** A deployment the CLI knows nothing about: idv by default, everything else judged by the worker. */
const UNKNOWN_DEPLOYMENT: DeploymentVendors = { order: ['idv'], stripeKey: undefined, stripeDouble: false, live: undefined };

/** Where each of a record's vendors gets its credentials: its own, the deployment's, none, or (the CLI cannot tell) unknown. */
export type CredentialsSource = 'own' | 'deployment' | 'none' | 'unknown';

/** The credentials of each vendor `record` uses (its own `vendors`, else the deployment's): never a value. */
export function vendorCredentials(
  record: PartnerRecord,
  deployment: DeploymentVendors = UNKNOWN_DEPLOYMENT,
): Partial<Record<VendorId, CredentialsSource>> {
  const entries = vendorEntries(record);
  const idv = entries?.find((e): e is IdvEntry => e.vendor === 'idv');
  const stripe = entries?.find((e): e is StripeEntry => e.vendor === 'stripe');
  const out: Partial<Record<VendorId, CredentialsSource>> = {};
  for (const v of entries?.map((e) => e.vendor) ?? deployment.order) {
    if (v === 'idv') out.idv = (idv?.childId ?? record.childId) && (idv?.apiKey ?? record.apiKey) ? 'own' : 'none';
    else
      out.stripe = stripe?.secretKey
        ? 'own'
        : deployment.stripeKey === undefined
          ? 'unknown'
          : deployment.stripeKey || deployment.stripeDouble
            ? 'deployment'
            : 'none';
  }
  return out;
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
  options: { sandbox: boolean; previous?: PartnerRecord; now?: Date; deployment?: DeploymentVendors },
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
  const deployment = options.deployment ?? UNKNOWN_DEPLOYMENT;
  const prevEntries = prev && vendorEntries(prev);
  const vendors =
    input.vendors === null ? undefined : (input.vendors?.map((v) => v.trim().toLowerCase()) ?? prevEntries?.map((e) => e.vendor));
  for (const v of vendors ?? []) if (!isVendorId(v)) problems.push(`vendors: "${v}" is not a vendor (${VENDOR_IDS.join(', ')})`);
  if (vendors && new Set(vendors).size !== vendors.length) problems.push('vendors: names a vendor twice');
  if (vendors && !vendors.length) problems.push('vendors: needs at least one vendor');
  // What the partner will use: its own vendors, else the deployment's.
  const uses = vendors ?? deployment.order;
  const failover = input.failover === null ? undefined : (input.failover?.trim().toLowerCase() ?? prev?.failover);
  if (failover !== undefined && !(FAILOVER_MODES as readonly string[]).includes(failover))
    problems.push('failover: must be off or before_start');
  else if (failover === 'before_start' && uses.length < 2)
    problems.push('failover: before_start needs a second vendor (its own vendors, else KYC_VENDOR)');
  // Stripe: its own key and signing secret live in its own `vendors` entry.
  const prevStripe = prevEntries?.find((e): e is StripeEntry => e.vendor === 'stripe');
  for (const [field, given] of [
    ['stripeSecretKey', input.stripeSecretKey],
    ['stripeWebhookSecret', input.stripeWebhookSecret],
  ] as const)
    if (given && !vendors?.includes('stripe')) problems.push(`${field}: needs stripe among its own vendors (--vendors)`);
  if (input.stripeSecretKey) {
    const problem = partnerStripeKeyProblem(input.stripeSecretKey.trim(), deployment.stripeDouble, deployment.live);
    if (problem) problems.push(`stripeSecretKey: ${problem}`);
  }
  if (input.stripeWebhookSecret && !/^whsec_\S+$/.test(input.stripeWebhookSecret.trim()))
    problems.push("stripeWebhookSecret: must be Stripe's signing secret (whsec_…)");
  const ownStripeKey = input.stripeSecretKey === null ? false : Boolean(input.stripeSecretKey) || prevStripe?.secretKey !== undefined;
  if (uses.includes('stripe') && !ownStripeKey && deployment.stripeKey === false && !deployment.stripeDouble)
    problems.push(
      "vendors: stripe has no credentials: neither its own (PARTNER_STRIPE_SECRET_KEY or --stripe-secret-key-file) nor the deployment's (STRIPE_SECRET_KEY)",
    );
  // idv: the record's child and key (or its idv entry's), needed only while idv is one of its vendors.
  const prevIdv = prevEntries?.find((e): e is IdvEntry => e.vendor === 'idv');
  if (uses.includes('idv')) {
    if (!(input.childId ?? prevIdv?.childId ?? prev?.childId)) problems.push('childId: is required (idv is one of its vendors)');
    if (!(input.apiKey ?? prevIdv?.apiKey ?? prev?.apiKey)) problems.push('apiKey: is required (idv is one of its vendors)');
  }
  if (!prev) {
    if (!input.displayName) problems.push('displayName: is required');
    if (!origins) problems.push('origins: is required');
  }
  const webhookUrl = input.webhookUrl === null ? undefined : (input.webhookUrl ?? prev?.webhookUrl);
  const webhookSecretSet = input.webhookSecret === null ? false : input.webhookSecret !== undefined || prev?.webhookSecret !== undefined;
  if (webhookUrl && !webhookSecretSet) problems.push('webhookSecret: is required with a webhook URL');
  if (problems.length) throw new InputError(problems);

  const sealIf = async (
    field: SealedField,
    value: string | null | undefined,
    previous: string | undefined = prev?.[field as (typeof SEALED_FIELDS)[number]],
  ): Promise<string | undefined> => {
    if (value === null) return undefined;
    if (value === undefined) return previous;
    return seal(publicKey, id, field, value.trim());
  };
  const entryOf = async (vendor: VendorId): Promise<VendorEntry> => {
    if (vendor === 'idv') return prevIdv ?? { vendor };
    return {
      vendor,
      ...opt('secretKey', await sealIf(STRIPE_SEALED_FIELDS.secretKey, input.stripeSecretKey, prevStripe?.secretKey)),
      ...opt('webhookSecret', await sealIf(STRIPE_SEALED_FIELDS.webhookSecret, input.stripeWebhookSecret, prevStripe?.webhookSecret)),
    };
  };
  const keep = (value: string | null | undefined, previous: string | undefined) => (value === null ? undefined : value?.trim() || previous);
  const record: PartnerRecord = {
    v: 1,
    partnerId: id,
    displayName: input.displayName?.trim() ?? prev!.displayName,
    origins: origins ? [...new Set(origins.map((o) => exactOrigin(o)!))] : prev!.origins,
    ...opt('childId', input.childId?.trim() ?? prev?.childId),
    ...opt('apiKey', await sealIf('apiKey', input.apiKey)),
    ...opt('flowId', keep(input.flowId, prev?.flowId)),
    ...opt('smsSenderName', keep(input.smsSenderName, prev?.smsSenderName)),
    ...opt('smsTemplateId', keep(input.smsTemplateId, prev?.smsTemplateId)),
    ...opt('defaultCountry', keep(input.defaultCountry?.toUpperCase(), prev?.defaultCountry)),
    ...opt('minAge', input.minAge === null ? undefined : (input.minAge ?? prev?.minAge)),
    ...opt('turnstileSecret', await sealIf('turnstileSecret', input.turnstileSecret)),
    ...opt('webhookUrl', webhookUrl),
    ...opt('webhookSecret', await sealIf('webhookSecret', input.webhookSecret)),
    ...opt('serverKeyHashes', input.serverKeyHashes ?? prev?.serverKeyHashes),
    ...opt('vendors', vendors && (await Promise.all(vendors.filter(isVendorId).map(entryOf)))),
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

const sealedShown = (v: string) => `set (sealed to ${sealedKid(v) ?? 'an unknown key'})`;

/**
 * A record as it may be shown: secrets only as "set (sealed to <kid>)", and
 * where each vendor's credentials come from (`vendorCredentials`), never a value.
 */
export function describe(record: PartnerRecord, deployment?: DeploymentVendors): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    if (k === 'v') continue;
    if (k === 'serverKeyHashes') shown.serverKeys = `${(v as string[]).length} (SHA-256 only)`;
    else if (k === 'vendors')
      shown.vendors = vendorEntries(record)!.map((e) =>
        Object.fromEntries(Object.entries(e).map(([f, x]) => [f, f === 'vendor' || f === 'childId' ? x : sealedShown(x)])),
      );
    else shown[k] = (SEALED_FIELDS as readonly string[]).includes(k) && typeof v === 'string' ? sealedShown(v) : v;
  }
  shown.vendorCredentials = vendorCredentials(record, deployment);
  return shown;
}
