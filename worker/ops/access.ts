/**
 * Who may use /ops (DESIGN.md "Operator console"):
 *   - Cloudflare Access (OPS_ACCESS_TEAM_DOMAIN + OPS_ACCESS_AUD): the
 *     `Cf-Access-Jwt-Assertion` header is verified (RS256 signature against
 *     the team's keys at https://<team domain>/cdn-cgi/access/certs, issuer,
 *     audience, expiry), never trusted because it is there;
 *   - `Authorization: Bearer <OPS_TOKEN>` (the CLI), compared in constant time;
 *   - neither configured: 404, as if there were no console, except with the
 *     sandbox as the vendor on a loopback host (a laptop), where it is open.
 * Configured, a request with neither a valid assertion nor the token is 401.
 */
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { usesSandbox, type Env } from '../lib/env';
import { configuredPublicOrigin, isLoopbackHost } from '../lib/public-origin';

export type Access = { kind: 'allowed'; by: 'access' | 'token' | 'local' } | { kind: 'not-found' } | { kind: 'unauthorized' };

/** The team domain as a host name (`team.cloudflareaccess.com`), from either a host or an https origin. */
export function teamDomain(env: Env): string | undefined {
  const raw = env.OPS_ACCESS_TEAM_DOMAIN?.trim();
  if (!raw) return undefined;
  try {
    const host = new URL(raw.includes('://') ? raw : `https://${raw}`).host;
    return host || undefined;
  } catch {
    return undefined;
  }
}

const jwksCache = new Map<string, JWTVerifyGetKey>();

function teamKeys(domain: string): JWTVerifyGetKey {
  let keys = jwksCache.get(domain);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(`https://${domain}/cdn-cgi/access/certs`), { cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
    jwksCache.set(domain, keys);
  }
  return keys;
}

/** Whether `assertion` is a valid Access token for this team and application. */
export async function verifyAccessAssertion(env: Env, assertion: string): Promise<boolean> {
  const domain = teamDomain(env);
  const aud = env.OPS_ACCESS_AUD?.trim();
  if (!domain || !aud || !assertion) return false;
  try {
    await jwtVerify(assertion, teamKeys(domain), {
      issuer: `https://${domain}`,
      audience: aud,
      algorithms: ['RS256', 'ES256'],
      requiredClaims: ['exp'],
    });
    return true;
  } catch {
    return false;
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

/** Open without credentials: the sandbox is the vendor and both the request and the configured public origin are loopback. */
export function openLocally(env: Env, requestUrl: string): boolean {
  if (!usesSandbox(env)) return false;
  if (!isLoopbackHost(new URL(requestUrl).hostname)) return false;
  const configured = configuredPublicOrigin(env);
  return !configured || isLoopbackHost(new URL(configured).hostname);
}

export async function checkAccess(env: Env, requestUrl: string, headers: Headers): Promise<Access> {
  const token = env.OPS_TOKEN?.trim();
  const accessOn = Boolean(teamDomain(env) && env.OPS_ACCESS_AUD?.trim());
  if (!token && !accessOn) return openLocally(env, requestUrl) ? { kind: 'allowed', by: 'local' } : { kind: 'not-found' };
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
