/**
 * A partner: one partner site (or group of sites) served by this deployment,
 * working at the vendor under its own child account. The registry record is
 * what `npm run partners` writes to Workers KV (secrets sealed); `Partner` is
 * what a request runs with once the record is resolved and opened.
 * docs/partners.md explains both for an operator.
 */
import * as z from 'zod';

export interface Partner {
  /** `partnerId`: lower-case letters, digits and dashes. */
  id: string;
  /** Shown on the handoff pages and in the demo. */
  displayName: string;
  /** Where it came from: the KV registry, the worker's environment, or the built-in demo. */
  source: 'registry' | 'environment' | 'demo';
  /** Exact origins (scheme://host[:port]) of its pages: CORS, and where its return URLs may point. */
  origins: readonly string[];
  /** Sent as `X-Service-CustomerID` (the operator's account). */
  customerId: string;
  /** Sent as `X-Service-CustomerChildID`, when set. */
  childId?: string;
  /** Sent as `api_key`: the child's own key. */
  apiKey: string;
  flowId?: string;
  smsSenderName?: string;
  smsTemplateId?: string;
  /** Turnstile secret of its site; unset = no bot check for this partner. */
  turnstileSecret?: string;
  /** Where its webhooks go, and the `whsec_` secret that signs them. */
  webhookUrl?: string;
  webhookSecret?: string;
  /** SHA-256 (hex) of its `/v1` server keys: at most two (a rotation's overlap). Registry partners only. */
  serverKeyHashes?: readonly string[];
}

/** Ids the worker gives its own partners; the registry may not take them. */
export const ENVIRONMENT_PARTNER_ID = 'environment';
export const DEMO_PARTNER_IDS = ['demo-a', 'demo-b'] as const;
export const RESERVED_PARTNER_IDS: readonly string[] = [ENVIRONMENT_PARTNER_ID, ...DEMO_PARTNER_IDS];

export const PARTNER_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The fields of a record that are sealed (their names are part of the sealing's associated data). */
export const SEALED_FIELDS = ['apiKey', 'turnstileSecret', 'webhookSecret'] as const;
export type SealedField = (typeof SEALED_FIELDS)[number];

/** KV keys of the registry. */
export const partnerKey = (id: string) => `partner:${id}`;
export const originKey = (origin: string) => `origin:${origin}`;
/** Index of `/v1` server keys: the key's SHA-256 → partnerId (the record's `serverKeyHashes` is the truth). */
export const serverKeyIndexKey = (hash: string) => `serverkey:${hash}`;
/** The public half of the sealing key, so `npm run partners` can seal without the private key. */
export const SEALING_PUBLIC_KEY = 'meta:sealing-public-key';

/** An exact origin as browsers send it: scheme://host[:port], nothing else. */
export function exactOrigin(value: string): string | undefined {
  try {
    const u = new URL(value);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
    // "https://a.example/" normalises to the origin; a path, query or credentials do not belong here.
    if (u.origin !== value.replace(/\/$/, '')) return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}

const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'contains control characters');

/** A sealed value: a JWE in compact form whose associated data is not stored (see sealing.ts). */
const sealed = z
  .string()
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'must be a sealed value');

export const PartnerRecord = z.strictObject({
  v: z.literal(1),
  partnerId: z.string().regex(PARTNER_ID, 'must be lower-case letters, digits and dashes (at most 63)'),
  displayName: text(80),
  origins: z
    .array(z.string().refine((o) => exactOrigin(o) === o, 'must be an origin such as https://shop.example (no path, no trailing slash)'))
    .min(1, 'needs at least one origin')
    .max(20),
  childId: text(128),
  apiKey: sealed,
  flowId: text(128).optional(),
  smsSenderName: text(64).optional(),
  smsTemplateId: text(128).optional(),
  turnstileSecret: sealed.optional(),
  webhookUrl: z.string().max(2048).optional(),
  webhookSecret: sealed.optional(),
  /** SHA-256 (hex) of its `/v1` server keys, newest first; never a key itself. */
  serverKeyHashes: z
    .array(z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 in hex'))
    .max(2, 'holds at most two keys')
    .optional(),
  /** When the record was last written (ISO 8601); for `npm run partners -- list`. */
  updatedAt: z.string().max(40),
});
export type PartnerRecord = z.infer<typeof PartnerRecord>;

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Why a webhook URL may not be used, or undefined when it may: `https`, or
 * `http` to a loopback host while the sandbox is the vendor; never a host
 * written as an IP address in a private, loopback or link-local range
 * (otherwise), never credentials in the URL.
 */
export function webhookUrlProblem(value: string, sandbox: boolean): string | undefined {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (u.username || u.password) return 'must not carry credentials';
  const host = u.hostname.toLowerCase();
  const loopback = LOOPBACK_HOST.test(host);
  if (u.protocol === 'http:')
    return sandbox && loopback ? undefined : 'must be https (http only to a loopback host while the sandbox is the vendor)';
  if (u.protocol !== 'https:') return 'must be https';
  if (!sandbox && privateAddress(host)) return 'must not point to a private, loopback or link-local address';
  return undefined;
}

function privateAddress(host: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (host.startsWith('[')) {
    const h = host.slice(1, -1);
    return h === '::1' || h === '::' || /^f[cd]/.test(h) || /^fe[89ab]/.test(h) || h.startsWith('::ffff:');
  }
  return host === 'localhost' || host.endsWith('.localhost');
}
