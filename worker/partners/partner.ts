/**
 * A partner: one partner site (or group of sites) served by this deployment,
 * working at the vendor under its own child account. The registry record is
 * what `npm run partners` writes to Workers KV (secrets sealed); `Partner` is
 * what a request runs with once the record is resolved and opened.
 * docs/partners.md explains both for an operator.
 */
import * as z from 'zod/mini';
import { httpUrl } from '../../rules/http-url';
import { DEFAULT_COUNTRY_PROBLEM, defaultCountryProblem } from '../lib/country';
import { VENDOR_IDS, type VendorId } from '../vendors/adapter';

/** VENDOR_FAILOVER's values, and a registry partner's `failover`. */
export const FAILOVER_MODES = ['off', 'before_start'] as const;
export type FailoverMode = (typeof FAILOVER_MODES)[number];

export interface Partner {
  /** `partnerId`: lower-case letters, digits and dashes. */
  id: string;
  /** Shown on the handoff pages and in the demo. */
  displayName: string;
  /** Where it came from: the KV registry, the worker's environment, or a partner source the deployment plugged in (the local stack's demo partners). */
  source: 'registry' | 'environment' | 'plugged';
  /** Exact origins (scheme://host[:port]) of its pages: CORS, and where its return URLs may point. */
  origins: readonly string[];
  /** The idv vendor's customer id (the operator's account). */
  customerId: string;
  /** The idv vendor's child id, when set. */
  childId?: string;
  /** The idv vendor's key: the child's own. */
  apiKey: string;
  flowId?: string;
  smsSenderName?: string;
  smsTemplateId?: string;
  /** The country (ISO 3166 alpha-2) whose calling code its widget starts with when the widget's language names no region. */
  defaultCountry?: string;
  /** Attempts each of its verifications allows (1–3; unset: 2). */
  maxAttempts?: number;
  /** The youngest age, in whole years, it may verify (1–120; unset: no minimum): the widget and the worker refuse a younger person. */
  minAge?: number;
  /** Turnstile secret of its site; unset = no bot check for this partner. */
  turnstileSecret?: string;
  /** Where its webhooks go, and the `whsec_` secret that signs them. */
  webhookUrl?: string;
  webhookSecret?: string;
  /** SHA-256 (hex) of its `/v1` server keys: at most two (a rotation's overlap). Registry partners only. */
  serverKeyHashes?: readonly string[];
  /** Its own Stripe credentials (a registry `vendors` entry); unset: the deployment's STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET. */
  stripe?: { secretKey?: string; webhookSecret?: string };
  /** Its vendors in priority order (registry `vendors`, the demo's switch); unset: the deployment's KYC_VENDOR. */
  vendors?: readonly VendorId[];
  /** Whether a link may go to its next vendor on a vendor fault (registry `failover`); unset: VENDOR_FAILOVER. */
  failover?: FailoverMode;
}

/** Ids the worker gives its own partners; the registry may not take them. */
export const ENVIRONMENT_PARTNER_ID = 'environment';
export const DEMO_PARTNER_IDS = ['demo-a', 'demo-b'] as const;
export const RESERVED_PARTNER_IDS: readonly string[] = [ENVIRONMENT_PARTNER_ID, ...DEMO_PARTNER_IDS];

export const PARTNER_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The fields of a record that are sealed (their names are part of the sealing's associated data). */
export const SEALED_FIELDS = ['apiKey', 'turnstileSecret', 'webhookSecret'] as const;
/** The sealed fields of a Stripe `vendors` entry, by the names they are sealed under (an idv entry's `apiKey` is sealed as `apiKey`). */
export const STRIPE_SEALED_FIELDS = { secretKey: 'stripeSecretKey', webhookSecret: 'stripeWebhookSecret' } as const;
export type SealedField = (typeof SEALED_FIELDS)[number] | (typeof STRIPE_SEALED_FIELDS)[keyof typeof STRIPE_SEALED_FIELDS];

/** KV keys of the registry. */
export const partnerKey = (id: string) => `partner:${id}`;
export const originKey = (origin: string) => `origin:${origin}`;
/** Index of `/v1` server keys: the key's SHA-256 → partnerId (the record's `serverKeyHashes` is the truth). */
export const serverKeyIndexKey = (hash: string) => `serverkey:${hash}`;
/** The public half of the sealing key, so `npm run partners` can seal without the private key. */
export const SEALING_PUBLIC_KEY = 'meta:sealing-public-key';

/** An exact origin as browsers send it: scheme://host[:port], nothing else. */
export function exactOrigin(value: string): string | undefined {
  const u = httpUrl(value);
  // "https://a.example/" normalises to the origin; a path, query or credentials do not belong here.
  return u && u.origin === value.replace(/\/$/, '') ? u.origin : undefined;
}

const text = (max: number) =>
  z.string().check(
    z.trim(),
    z.minLength(1, 'must not be empty'),
    z.maxLength(max, `must be at most ${max} characters`),
    // eslint-disable-next-line no-control-regex -- refusing control characters is the point
    z.refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'contains control characters'),
  );

/** A sealed value: a JWE in compact form whose associated data is not stored (see sealing.ts). */
const sealed = z
  .string()
  .check(z.regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'must be a sealed value'));

/** A registry `vendors` entry for idv: its own child and key, when not the record's. */
const IdvEntry = z.strictObject({ vendor: z.literal('idv'), childId: z.optional(text(128)), apiKey: z.optional(sealed) });
/** A registry `vendors` entry for Stripe: the partner's own key and its endpoint's signing secret, when not the deployment's. */
const StripeEntry = z.strictObject({ vendor: z.literal('stripe'), secretKey: z.optional(sealed), webhookSecret: z.optional(sealed) });
export type IdvEntry = z.infer<typeof IdvEntry>;
export type StripeEntry = z.infer<typeof StripeEntry>;
export type VendorEntry = IdvEntry | StripeEntry;

const vendorOfEntry = (e: VendorId | VendorEntry): VendorId => (typeof e === 'string' ? e : e.vendor);

/** A record's `vendors` as entries (a bare id, the older form, is an entry without credentials). */
export function vendorEntries(record: Pick<PartnerRecord, 'vendors'>): VendorEntry[] | undefined {
  return record.vendors?.map((e) => (typeof e === 'string' ? { vendor: e } : e));
}

export const PartnerRecord = z.strictObject({
  v: z.literal(1),
  partnerId: z.string().check(z.regex(PARTNER_ID, 'must be lower-case letters, digits and dashes (at most 63)')),
  displayName: text(80),
  origins: z
    .array(
      z
        .string()
        .check(z.refine((o) => exactOrigin(o) === o, 'must be an origin such as https://shop.example (no path, no trailing slash)')),
    )
    .check(z.minLength(1, 'needs at least one origin'), z.maxLength(20)),
  /** The idv vendor's child id and key (an idv `vendors` entry may hold its own, which win); needed while idv is one of its vendors. */
  childId: z.optional(text(128)),
  apiKey: z.optional(sealed),
  flowId: z.optional(text(128)),
  smsSenderName: z.optional(text(64)),
  smsTemplateId: z.optional(text(128)),
  defaultCountry: z.optional(z.string().check(z.refine((c) => !defaultCountryProblem(c), DEFAULT_COUNTRY_PROBLEM))),
  maxAttempts: z.optional(z.int().check(z.minimum(1), z.maximum(3))),
  minAge: z.optional(z.int().check(z.minimum(1), z.maximum(120))),
  turnstileSecret: z.optional(sealed),
  webhookUrl: z.optional(z.string().check(z.maxLength(2048))),
  webhookSecret: z.optional(sealed),
  /** SHA-256 (hex) of its `/v1` server keys, newest first; never a key itself. */
  serverKeyHashes: z.optional(
    z.array(z.string().check(z.regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 in hex'))).check(z.maxLength(2, 'holds at most two keys')),
  ),
  /**
   * Its vendors in priority order, each once (unset: the deployment's
   * KYC_VENDOR), each with its own credentials where it has them: idv its
   * `childId` and sealed `apiKey` (else the record's), Stripe its sealed
   * `secretKey` and `webhookSecret` (else the deployment's STRIPE_*). A bare
   * vendor id (records written before entries held credentials) is read as
   * an entry without any (docs/partners.md).
   */
  vendors: z.optional(
    z.array(z.union([z.enum(VENDOR_IDS), IdvEntry, StripeEntry])).check(
      z.minLength(1, 'needs at least one vendor'),
      z.maxLength(VENDOR_IDS.length),
      z.refine((l) => new Set(l.map(vendorOfEntry)).size === l.length, 'names a vendor twice'),
    ),
  ),
  /** `before_start`: a link goes to the next vendor on a vendor fault (unset: VENDOR_FAILOVER). */
  failover: z.optional(z.enum(FAILOVER_MODES)),
  /** When the record was last written (ISO 8601); for `npm run partners -- list`. */
  updatedAt: z.string().check(z.maxLength(40)),
});
export type PartnerRecord = z.infer<typeof PartnerRecord>;
