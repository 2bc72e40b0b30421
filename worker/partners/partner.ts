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
  childId: text(128),
  apiKey: sealed,
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
   * KYC_VENDOR). An entry holds the vendor's id only: idv works with the
   * record's `childId` and `apiKey`, Stripe with the deployment's STRIPE_*
   * settings (docs/partners.md).
   */
  vendors: z.optional(
    z.array(z.strictObject({ vendor: z.enum(VENDOR_IDS) })).check(
      z.minLength(1, 'needs at least one vendor'),
      z.maxLength(VENDOR_IDS.length),
      z.refine((l) => new Set(l.map((e) => e.vendor)).size === l.length, 'names a vendor twice'),
    ),
  ),
  /** `before_start`: a link goes to the next vendor on a vendor fault (unset: VENDOR_FAILOVER). */
  failover: z.optional(z.enum(FAILOVER_MODES)),
  /** When the record was last written (ISO 8601); for `npm run partners -- list`. */
  updatedAt: z.string().check(z.maxLength(40)),
});
export type PartnerRecord = z.infer<typeof PartnerRecord>;

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Why a webhook URL may not be used, or undefined when it may: `https`, or
 * `http` to a loopback host while the sandbox is the vendor on a local
 * worker (`localSandbox`); never credentials in the URL; never (otherwise,
 * and so also for a deployed sandbox demo) a host that cannot be a public
 * server: `localhost` (with or without its trailing dot), a single-label name,
 * a private-use name (`PRIVATE_SUFFIXES`), a special-use name that is never
 * routed (`NEVER_ROUTED_SUFFIXES`: `.test`, `.example`, `.invalid`, `.onion`, `.alt`), a port other than 443 and 8443, or an IP address in a private, loopback, link-local, shared, benchmarking,
 * multicast or reserved range, IPv6 forms that embed an IPv4 address
 * included (mapped, compatible, NAT64, 6to4, Teredo). A DNS name that
 * resolves to such an address cannot be seen here (docs/security.md).
 */
export function webhookUrlProblem(value: string, localSandbox: boolean): string | undefined {
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
    return localSandbox && loopback ? undefined : 'must be https (http only to a loopback host while the sandbox is the vendor locally)';
  if (u.protocol !== 'https:') return 'must be https';
  if (!localSandbox && notPublicHost(host))
    return 'must be a public host (not a private, loopback, link-local or reserved address, nor a single-label or private-use name)';
  // Webhook servers listen on HTTPS ports; any other port (22, 6379, …) makes the worker a probe of other services.
  if (!(localSandbox && loopback) && u.port !== '' && !WEBHOOK_PORTS.has(u.port))
    return 'must use port 443 or 8443 (any port only to a loopback host while the sandbox is the vendor locally)';
  return undefined;
}

/** Ports a webhook URL may name besides https' default (443, which the URL parser leaves empty). */
const WEBHOOK_PORTS = new Set(['443', '8443']);

/**
 * Name suffixes for private networks, never public DNS: mDNS (`.local`), RFC 8375's `.home.arpa` (and `.arpa`
 * as a whole: no web server lives there), ICANN's `.internal`, names routers and companies use (`.lan`,
 * `.home`, `.corp`, `.intranet`, `.private`, `.localdomain`) and cluster service names (`.svc`,
 * `.cluster.local`, as in `kubernetes.default.svc`).
 */
const PRIVATE_SUFFIXES = ['localhost', 'local', 'arpa', 'internal', 'lan', 'home', 'corp', 'intranet', 'private', 'localdomain', 'svc'];

/**
 * Special-use names that never resolve on the public internet (issue 40 found
 * them accepted): RFC 6761's `.test`, `.example` and `.invalid`, Tor's
 * `.onion` (RFC 7686) and RFC 9476's `.alt`.
 */
const NEVER_ROUTED_SUFFIXES = ['test', 'example', 'invalid', 'onion', 'alt'];

/** IPv4 ranges no public webhook server lives in: [first octets as a number, prefix length]. */
const V4_BLOCKED: [number, number][] = [
  [0x00000000, 8], // "this network"
  [0x0a000000, 8], // private
  [0x64400000, 10], // shared (carrier-grade NAT)
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local
  [0xac100000, 12], // private
  [0xc0000000, 24], // IETF protocol assignments
  [0xc0000200, 24], // documentation
  [0xc0586300, 24], // 6to4 relay anycast 192.88.99.0/24 (deprecated, RFC 7526)
  [0xc0a80000, 16], // private
  [0xc6120000, 15], // benchmarking
  [0xc6336400, 24], // documentation
  [0xcb007100, 24], // documentation
  [0xe0000000, 4], // multicast
  [0xf0000000, 4], // reserved, broadcast
];

function blockedV4(n: number): boolean {
  return V4_BLOCKED.some(([net, bits]) => n >>> (32 - bits) === net >>> (32 - bits));
}

/** The 8 groups of an IPv6 address as the URL parser writes it (compressed, hex, no IPv4 tail). */
function v6Groups(h: string): number[] | undefined {
  const [head = '', tail] = h.split('::');
  const part = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const a = part(head);
  const b = tail === undefined ? [] : part(tail);
  const groups = tail === undefined ? a : [...a, ...Array<number>(8 - a.length - b.length).fill(0), ...b];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

function blockedV6(g: number[]): boolean {
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(6)) return true; // ::, ::1, and IPv4-compatible ::a.b.c.d
  if (zeros(5) && g[5] === 0xffff) return true; // IPv4-mapped ::ffff:a.b.c.d
  if (zeros(4) && g[4] === 0xffff && g[5] === 0) return true; // IPv4-translated ::ffff:0:a.b.c.d (::ffff:0:0/96)
  if (g[0] === 0x64 && g[1] === 0xff9b) return true; // NAT64 64:ff9b::/96 and the local-use 64:ff9b:1::/48
  if (g[0] === 0x2002) return true; // 6to4 2002::/16: embeds an IPv4 address; refused whole
  if (g[0] === 0x2001 && g[1]! <= 0x01ff) return true; // Teredo 2001::/32 and IETF assignments 2001::/23
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g[0] === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return true; // discard 100::/64
  if ((g[0]! & 0xfff0) === 0x3ff0) return true; // documentation 3fff::/20 (RFC 9637)
  if (g[0] === 0x5f00) return true; // SRv6 segment identifiers 5f00::/16 (RFC 9602)
  const first = g[0]!;
  return (
    (first & 0xfe00) === 0xfc00 || // unique local fc00::/7
    (first & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (first & 0xffc0) === 0xfec0 || // site-local fec0::/10 (deprecated)
    (first & 0xff00) === 0xff00 // multicast
  );
}

function notPublicHost(host: string): boolean {
  if (host.startsWith('[')) {
    const g = v6Groups(host.slice(1, -1));
    return !g || blockedV6(g);
  }
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) return blockedV4(((+v4[1]! << 24) | (+v4[2]! << 16) | (+v4[3]! << 8) | +v4[4]!) >>> 0);
  const name = host.replace(/\.$/, ''); // `localhost.` is localhost
  return (
    !name.includes('.') || [...PRIVATE_SUFFIXES, ...NEVER_ROUTED_SUFFIXES].some((suffix) => name === suffix || name.endsWith(`.${suffix}`))
  );
}
