/**
 * Where a worker may deliver webhooks: the one copy of the rule the worker
 * (partners, WEBHOOK_URL, each delivery) and the deploy script (`npm run
 * deploy`, `npm run setup`) both read. Plain functions, no dependencies.
 */

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
