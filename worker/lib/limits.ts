/**
 * Rate limits with the Workers rate-limiting binding, which counts in fixed
 * windows aligned to the clock: per client IP on every /api and /handoff
 * request, whichever partner it claims (RL_IP), and per destination phone
 * number for SMS, whichever partner asks (RL_SMS). Budgets longer than a
 * window are in allowances.ts. A binding that is missing (a wrangler.toml
 * without it) is 500 MISCONFIGURED naming it, as for the stores: a limit never
 * switches itself off.
 */
import { missingBinding } from './env';
import { ApiError } from './errors';
import { systemClock } from './clock';

type RateLimitName = 'RL_IP' | 'RL_IP_48' | 'RL_SMS' | 'RL_SERVER_KEY' | 'RL_SEARCH' | 'RL_AUTH_FAIL';

/** Both bindings use 60-second windows (wrangler.toml). */
const PERIOD_SECONDS = 60;

export function clientIp(headers: Headers): string {
  return headers.get('CF-Connecting-IP')?.trim() || 'unknown';
}

/**
 * The rate-limit key of a client address. An IPv6 client usually holds a
 * whole /64 (2^64 addresses), so keying on the full address would let it
 * step around the limit; IPv6 counts per /64 (and, with `prefix` 48, per /48:
 * homes and hosts are often given a /56 or a /48, i.e. 256 or 65,536 /64s),
 * IPv4 per address.
 */
export function ipKey(ip: string, prefix: 64 | 48 = 64): string {
  if (!ip.includes(':')) return ip;
  const addr = ip
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/.test(addr)) return addr.slice(7); // IPv4-mapped
  const [head = '', tail] = addr.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return (
    groups
      .slice(0, prefix / 16)
      .map((g) => g.replace(/^0+(?=.)/, '') || '0')
      .join(':') + `::/${prefix}`
  );
}

/**
 * The client's own budget, independent of the partner: RL_IP per address
 * (IPv6 per /64) and, for IPv6, RL_IP_48 per /48, so the /64s of one
 * allocation do not each get a budget.
 */
export async function enforceClient(env: Partial<Record<RateLimitName, RateLimit>>, headers: Headers): Promise<void> {
  const ip = clientIp(headers);
  await enforce(env, 'RL_IP', `ip ${ipKey(ip)}`, 'requests');
  if (ip.includes(':')) await enforce(env, 'RL_IP_48', `ip48 ${ipKey(ip, 48)}`, 'requests');
}

/** Counts `key` against the rate-limit binding `name` of `env`; 429 past its limit. */
export async function enforce(
  env: Partial<Record<RateLimitName, RateLimit>>,
  name: RateLimitName,
  key: string,
  what: string,
): Promise<void> {
  const binding = env[name];
  if (!binding) throw missingBinding(name);
  const { success } = await binding.limit({ key });
  if (success) return;
  const retryAfter = Math.max(1, PERIOD_SECONDS - (Math.floor(systemClock() / 1000) % PERIOD_SECONDS));
  throw new ApiError(429, 'RATE_LIMITED', `Too many ${what}. Please wait a moment and try again.`, [], {
    'Retry-After': String(retryAfter),
  });
}
