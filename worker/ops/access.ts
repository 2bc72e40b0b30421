/**
 * Who may use /ops (docs/operations.md "Operator console"):
 *   - Cloudflare Access (OPS_ACCESS_TEAM_DOMAIN + OPS_ACCESS_AUD): the
 *     `Cf-Access-Jwt-Assertion` header is verified (RS256 signature against
 *     the team's keys at https://<team domain>/cdn-cgi/access/certs, issuer,
 *     audience, expiry), never trusted because it is there; WebCrypto does
 *     it, as for the worker's other tokens (jose's JWT verification would add
 *     about 7 KB gzip to the bundle; the tests sign with jose);
 *   - `Authorization: Bearer <OPS_TOKEN>` (the CLI), compared in constant time; a token
 *     under 32 characters is a misconfiguration (500 naming OPS_TOKEN), never a password;
 *   - neither configured: 404, as if there were no console, except with the
 *     sandbox as the vendor on a loopback host (a laptop), where it is open.
 * Configured, a request with neither a valid assertion nor the token is 401.
 */
import { fromBase64url } from '../../rules/base64url';
import { errorName, type Issue } from '../lib/errors';
import type { Env } from '../lib/env';
import type { Ports } from '../ports';
import { isLoopbackHost } from '../lib/origins';
import { fromThisMachine } from '../lib/local-client';
import { config, type Config } from '../config';
import { log } from '../lib/log';
import { systemClock } from '../lib/clock';

export type Access =
  | { kind: 'allowed'; by: 'access' | 'token' | 'local' }
  | { kind: 'not-found' }
  | { kind: 'unauthorized' }
  | { kind: 'misconfigured'; issues: Issue[] };

/** A shorter OPS_TOKEN can be guessed: the console refuses to run with one. */
export const OPS_TOKEN_MIN_LENGTH = 32;

/** The team domain as a host name (`team.cloudflareaccess.com`), from either a host or an https origin. */
export function teamDomain(cfg: Pick<Config, 'opsAccess'>): string | undefined {
  const raw = cfg.opsAccess.teamDomain;
  if (!raw) return undefined;
  try {
    const host = new URL(raw.includes('://') ? raw : `https://${raw}`).host;
    return host || undefined;
  } catch {
    return undefined;
  }
}

interface RsaJwk {
  kty: string;
  kid?: string;
  n?: string;
  e?: string;
}

/** The team's keys, per isolate: kept 10 minutes, fetched again at most every 30 s when an unknown `kid` shows up. */
const teamKeyCache = new Map<string, { keys: RsaJwk[]; at: number }>();
const KEYS_MAX_AGE_MS = 10 * 60_000;
const KEYS_COOLDOWN_MS = 30_000;

async function teamKeys(domain: string, kid: string, now: number): Promise<RsaJwk[]> {
  const cached = teamKeyCache.get(domain);
  const fresh = cached && now - cached.at < KEYS_MAX_AGE_MS;
  const knows = cached?.keys.some((k) => k.kid === kid);
  if (cached && fresh && (knows || now - cached.at < KEYS_COOLDOWN_MS)) return cached.keys;
  try {
    const res = await fetch(`https://${domain}/cdn-cgi/access/certs`, { signal: AbortSignal.timeout(5000), redirect: 'manual' });
    if (!res.ok) throw new Error(`status ${res.status}`);
    const body: { keys?: RsaJwk[] } = await res.json();
    const keys = Array.isArray(body.keys) ? body.keys : [];
    teamKeyCache.set(domain, { keys, at: now });
    return keys;
  } catch (err) {
    log.error('ops_access_keys_unavailable', { error: errorName(err) });
    return cached?.keys ?? [];
  }
}

const json = (s: string): Record<string, unknown> => JSON.parse(new TextDecoder().decode(fromBase64url(s))) as Record<string, unknown>;

/** Seconds of clock difference allowed on `exp` and `nbf`. */
const LEEWAY_S = 5;

/**
 * Whether `assertion` is a valid Access token for this team and application:
 * an RS256 JWS signed by one of the team's keys (WebCrypto: no JWT library in
 * the worker's bundle), issued by the team, for this audience, not expired.
 */
export async function verifyAccessAssertion(env: Env, assertion: string, now = systemClock()): Promise<boolean> {
  const cfg = config(env);
  const domain = teamDomain(cfg);
  const aud = cfg.opsAccess.aud;
  if (!domain || !aud || !assertion) return false;
  try {
    const [h, p, sig, extra] = assertion.split('.');
    if (!h || !p || !sig || extra !== undefined) return false;
    const header = json(h);
    if (header.alg !== 'RS256' || typeof header.kid !== 'string') return false;
    const jwk = (await teamKeys(domain, header.kid, now)).find((k) => k.kid === header.kid && k.kty === 'RSA' && k.n && k.e);
    if (!jwk) return false;
    const key = await crypto.subtle.importKey(
      'jwk',
      { kty: 'RSA', n: jwk.n, e: jwk.e, alg: 'RS256', ext: true },
      { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      false,
      ['verify'],
    );
    const signed = new TextEncoder().encode(`${h}.${p}`);
    if (!(await crypto.subtle.verify('RSASSA-PKCS1-v1_5', key, fromBase64url(sig), signed))) return false;
    const claims = json(p);
    const seconds = now / 1000;
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    return (
      claims.iss === `https://${domain}` &&
      audiences.includes(aud) &&
      typeof claims.exp === 'number' &&
      claims.exp + LEEWAY_S > seconds &&
      (claims.nbf === undefined || (typeof claims.nbf === 'number' && claims.nbf - LEEWAY_S <= seconds))
    );
  } catch {
    return false; // not base64url, not JSON, not a key WebCrypto takes
  }
}

/** Equal strings, in time that depends on neither's content (both are hashed first, so lengths do not leak either). */
export async function tokenEquals(given: string, expected: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest('SHA-256', enc.encode(given)),
    crypto.subtle.digest('SHA-256', enc.encode(expected)),
  ]);
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0 && given.length > 0;
}

/**
 * Open without credentials: the sandbox is the vendor, the request comes from this machine (by its
 * connection's address, not its Host header: lib/local-client.ts) and the configured public origin is loopback.
 */
export function openLocally(env: Env, ports: Pick<Ports, 'inProcessVendor'>, requestUrl: string, headers: Headers): boolean {
  // Production has no sandbox (entry/production.ts): never open there.
  const cfg = config(env);
  if (!cfg.vendor.sandbox || !ports.inProcessVendor) return false;
  if (!fromThisMachine(cfg, requestUrl, headers)) return false;
  const configured = cfg.publicOrigin;
  return !configured || isLoopbackHost(new URL(configured).hostname);
}

export async function checkAccess(env: Env, ports: Pick<Ports, 'inProcessVendor'>, requestUrl: string, headers: Headers): Promise<Access> {
  const cfg = config(env);
  const token = cfg.secrets.opsToken;
  const accessOn = Boolean(teamDomain(cfg) && cfg.opsAccess.aud);
  if (!token && !accessOn) return openLocally(env, ports, requestUrl, headers) ? { kind: 'allowed', by: 'local' } : { kind: 'not-found' };
  if (token && token.length < OPS_TOKEN_MIN_LENGTH) {
    return {
      kind: 'misconfigured',
      issues: [{ issueLocation: 'OPS_TOKEN', issue: `must be at least ${OPS_TOKEN_MIN_LENGTH} characters` }],
    };
  }
  if (token) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(headers.get('Authorization') ?? '');
    if (m && (await tokenEquals(m[1]!, token))) return { kind: 'allowed', by: 'token' };
  }
  if (accessOn) {
    const assertion = headers.get('Cf-Access-Jwt-Assertion');
    if (assertion && (await verifyAccessAssertion(env, assertion))) return { kind: 'allowed', by: 'access' };
  }
  return { kind: 'unauthorized' };
}
