/**
 * The partner registry in Workers KV (binding PARTNERS), read through a short
 * in-isolate cache so that most requests cost no KV round trip. Layout:
 * `origin:<origin>` → partnerId, `partner:<id>` → the record (secrets
 * sealed). A change (add, update, rotate-key, remove) reaches every isolate
 * within PARTNERS_CACHE_SECONDS plus KV's own propagation (up to about 60 s).
 * Misses are cached too, so a flood of unknown origins costs one KV read per
 * origin per window (out of the client's request budget, which is counted
 * first); they are kept apart from the partners found, so such a flood never
 * evicts a cached partner. Both caches are bounded.
 */
import { config, type Config } from '../config';
import { bindingIfAny, type Env } from '../lib/env';
import type { SandboxDefaults } from '../ports';
import {
  originKey,
  partnerKey,
  PartnerRecord,
  SEALED_FIELDS,
  STRIPE_SEALED_FIELDS,
  vendorEntries,
  type IdvEntry,
  type Partner,
  type SealedField,
  type StripeEntry,
} from './partner';
import { partnerStripeKeyProblem } from '../vendors/settings';
import { open, SealingError, sealingKeys } from './sealing';
import { systemClock } from '../lib/clock';
import { minAgeOf, minAgeSetting } from '../lib/min-age';

const MAX_ENTRIES = 2000;

/** KV itself propagates a change to other locations within about this long. */
export const KV_PROPAGATION_SECONDS = 60;

/** A record that is present but unusable (bad JSON, wrong shape, a secret that does not open). */
export class RegistryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryError';
  }
}

interface Entry {
  at: number;
  /** Keyed by the settings the value was opened with: a new sealing key or customer ID misses. */
  config: string;
  value: Partner | null;
}
const cache = new Map<string, Entry>();
/** Lookups that found nothing: their own bounded map, so they cannot push partners out of `cache`. */
const misses = new Map<string, Entry>();

/** Tests and a new sealing key start from nothing. */
export function clearPartnerCache(): void {
  cache.clear();
  misses.clear();
}

function configKey({ secrets, operator, vendor, vendors, livemode }: Config): string {
  return `${livemode}|${vendors.stripe.sandbox}|${secrets.partnerSealingKey ?? ''}|${operator.customerId ?? ''}|${vendor.baseUrl ?? ''}|${operator.flowId ?? ''}|${operator.smsSenderName ?? ''}|${operator.smsTemplateId ?? ''}|${secrets.turnstileSecretKey ?? ''}`;
}

async function cached(env: Env, key: string, load: () => Promise<Partner | null>, now: number): Promise<Partner | null> {
  const settings = configKey(config(env));
  const hit = cache.get(key) ?? misses.get(key);
  if (hit && hit.config === settings && now - hit.at < config(env).partnersCacheSeconds * 1000) return hit.value;
  const value = await load(); // errors are not cached: the next request tries again
  const into = value ? cache : misses;
  cache.delete(key);
  misses.delete(key);
  if (into.size >= MAX_ENTRIES) into.delete(into.keys().next().value!);
  into.set(key, { at: now, config: settings, value });
  return value;
}

/** The registry partner owning `origin` (an exact, normalised origin), or null. */
export async function registryPartnerByOrigin(
  env: Env,
  origin: string,
  now = systemClock(),
  defaults?: SandboxDefaults,
): Promise<Partner | null> {
  const kv = bindingIfAny(env, 'PARTNERS');
  if (!kv) return null;
  return cached(
    env,
    `o ${origin}`,
    async () => {
      const id = await kv.get(originKey(origin));
      if (!id) return null;
      const partner = await loadPartner(env, id, defaults);
      // The record is the truth: an index entry left behind by an interrupted
      // update must not hand the origin to a partner that no longer lists it.
      return partner && partner.origins.includes(origin) ? partner : null;
    },
    now,
  );
}

/** The registry partner with this id, or null. */
export async function registryPartnerById(env: Env, id: string, now = systemClock(), defaults?: SandboxDefaults): Promise<Partner | null> {
  if (!bindingIfAny(env, 'PARTNERS')) return null;
  return cached(env, `p ${id}`, () => loadPartner(env, id, defaults), now);
}

async function loadPartner(env: Env, id: string, defaults?: SandboxDefaults): Promise<Partner | null> {
  const raw = await env.PARTNERS.get(partnerKey(id));
  if (raw === null) return null;
  let record: PartnerRecord;
  try {
    const parsed = PartnerRecord.safeParse(JSON.parse(raw));
    if (!parsed.success || parsed.data.partnerId !== id) throw new Error('shape');
    record = parsed.data;
  } catch {
    throw new RegistryError(`the registry record of ${id} is not valid`);
  }
  return openRecord(env, record, defaults);
}

/** Opens a record's sealed fields with PARTNER_SEALING_KEY (the sandbox's development key where plugged in and unset); all or nothing. */
export async function openRecord(env: Env, record: PartnerRecord, defaults?: SandboxDefaults): Promise<Partner> {
  const cfg = config(env);
  const keys = sealingKeys(cfg, defaults?.sealingKey);
  const opened: Partial<Record<SealedField, string>> = {};
  for (const field of SEALED_FIELDS) {
    const value = record[field];
    if (value !== undefined) opened[field] = await open(keys, record.partnerId, field, value);
  }
  const entries = vendorEntries(record);
  const idv = entries?.find((e): e is IdvEntry => e.vendor === 'idv');
  const stripe = entries?.find((e): e is StripeEntry => e.vendor === 'stripe');
  const stripeOwn: NonNullable<Partner['stripe']> = {};
  for (const [field, sealedAs] of Object.entries(STRIPE_SEALED_FIELDS) as [keyof typeof STRIPE_SEALED_FIELDS, SealedField][]) {
    const value = stripe?.[field];
    if (value !== undefined) stripeOwn[field] = await open(keys, record.partnerId, sealedAs, value);
  }
  // One deployment, one mode: a record written for another (or before the deployment changed) is never used.
  const keyProblem = stripeOwn.secretKey && partnerStripeKeyProblem(stripeOwn.secretKey, cfg.vendors.stripe.sandbox, cfg.livemode);
  if (keyProblem) throw new RegistryError(`the registry record of ${record.partnerId}: vendors.stripe.secretKey ${keyProblem}`);
  const idvKey = idv?.apiKey !== undefined ? await open(keys, record.partnerId, 'apiKey', idv.apiKey) : opened.apiKey;
  const { operator, secrets } = cfg;
  return {
    id: record.partnerId,
    displayName: record.displayName,
    source: 'registry',
    origins: record.origins,
    customerId: operator.customerId ?? (cfg.vendor.sandbox ? (defaults?.customerId ?? '') : ''),
    ...((idv?.childId ?? record.childId) ? { childId: idv?.childId ?? record.childId } : {}),
    // A partner without idv credentials (Stripe only) has none to send; `npm run partners` refuses one that needs them.
    apiKey: idvKey ?? '',
    // Flow and SMS settings fall back to the environment's; the webhook does
    // not (another partner's events must never reach the operator's default).
    flowId: record.flowId ?? operator.flowId,
    smsSenderName: record.smsSenderName ?? operator.smsSenderName,
    smsTemplateId: record.smsTemplateId ?? operator.smsTemplateId,
    defaultCountry: record.defaultCountry ?? cfg.defaultCountry,
    ...(record.maxAttempts !== undefined ? { maxAttempts: record.maxAttempts } : {}),
    ...minAgeSetting(record.minAge ?? minAgeOf(cfg.minAge)),
    turnstileSecret: opened.turnstileSecret ?? secrets.turnstileSecretKey,
    webhookUrl: record.webhookUrl,
    webhookSecret: opened.webhookSecret,
    ...(record.serverKeyHashes ? { serverKeyHashes: record.serverKeyHashes } : {}),
    // The record's own choice wins over the deployment's KYC_VENDOR and VENDOR_FAILOVER (docs/partners.md).
    ...(entries ? { vendors: entries.map((e) => e.vendor) } : {}),
    ...(Object.keys(stripeOwn).length ? { stripe: stripeOwn } : {}),
    ...(record.failover ? { failover: record.failover } : {}),
  };
}

export { SealingError };
