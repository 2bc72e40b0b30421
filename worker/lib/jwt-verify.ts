/**
 * Verifies a JWT (compact JWS) against a remote JWKS with WebCrypto alone:
 * the Cloudflare Access assertion of /ops. RS256 or ES256, the key chosen by
 * `kid` (and type); `iss` and `aud` must match, `exp` is required and in the
 * future, `nbf` (if any) not. Keys are fetched once per `cacheMs`, and again
 * for an unknown `kid` at most once per `cooldownMs`. jose's `jwtVerify` and
 * `createRemoteJWKSet` did the same for about 6 KB gzip of the production
 * bundle; the tests still sign with jose.
 */
import { fromBase64url } from './base64url';

type Alg = 'RS256' | 'ES256';
type Jwk = JsonWebKey & { kid?: string; use?: string };

const ALGS: Record<Alg, { key: Parameters<SubtleCrypto['importKey']>[2]; verify: Parameters<SubtleCrypto['verify']>[0] }> = {
  RS256: { key: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, verify: { name: 'RSASSA-PKCS1-v1_5' } },
  ES256: { key: { name: 'ECDSA', namedCurve: 'P-256' }, verify: { name: 'ECDSA', hash: 'SHA-256' } },
};

export type KeyLookup = (kid: string | undefined, alg: Alg) => Promise<CryptoKey | undefined>;

const fits = (k: Jwk, kid: string | undefined, alg: Alg) =>
  (kid === undefined || k.kid === kid) &&
  (!k.alg || k.alg === alg) &&
  (!k.use || k.use === 'sig') &&
  (alg === 'RS256' ? k.kty === 'RSA' : k.kty === 'EC' && k.crv === 'P-256');

/** The keys published at `url` (a JWKS), fetched when needed. */
export function remoteJwks(url: string, { cacheMs = 10 * 60_000, cooldownMs = 30_000, timeoutMs = 5000 } = {}): KeyLookup {
  let keys: Jwk[] | undefined;
  let fetchedAt = 0;
  let pending: Promise<void> | undefined;
  const imported = new Map<string, Promise<CryptoKey>>();
  const refresh = () =>
    (pending ??= (async () => {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
      if (!res.ok) throw new Error(`JWKS answered ${res.status}`);
      const body = (await res.json()) as { keys?: unknown };
      keys = Array.isArray(body?.keys) ? (body.keys as Jwk[]) : [];
      fetchedAt = Date.now();
    })().finally(() => (pending = undefined)));
  return async (kid, alg) => {
    if (!keys || Date.now() - fetchedAt > cacheMs) await refresh();
    let found = keys!.filter((k) => fits(k, kid, alg));
    if (!found.length && Date.now() - fetchedAt > cooldownMs) {
      await refresh();
      found = keys!.filter((k) => fits(k, kid, alg));
    }
    if (found.length !== 1) return undefined; // none, or no way to tell which
    const jwk = found[0]!;
    const id = `${alg} ${JSON.stringify(jwk)}`;
    let key = imported.get(id);
    if (!key) {
      key = crypto.subtle.importKey('jwk', { kty: jwk.kty, n: jwk.n, e: jwk.e, crv: jwk.crv, x: jwk.x, y: jwk.y }, ALGS[alg].key, false, [
        'verify',
      ]);
      imported.set(id, key);
      key.catch(() => imported.delete(id));
    }
    return key;
  };
}

const json = (part: string): unknown => JSON.parse(new TextDecoder().decode(fromBase64url(part)));

/** The claims of a valid token; throws when it is malformed, not signed by a key of `keys`, or its claims do not fit. */
export async function verifyJwt(
  token: string,
  keys: KeyLookup,
  expect: { issuer: string; audience: string },
  now = Date.now(),
): Promise<Record<string, unknown>> {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error('malformed');
  const [h, p, s] = parts as [string, string, string];
  const header = json(h) as { alg?: unknown; kid?: unknown; crit?: unknown };
  const alg = header?.alg;
  if (alg !== 'RS256' && alg !== 'ES256') throw new Error('algorithm');
  if (header.crit !== undefined) throw new Error('crit');
  const key = await keys(typeof header.kid === 'string' ? header.kid : undefined, alg);
  if (!key) throw new Error('no key');
  const ok = await crypto.subtle.verify(ALGS[alg].verify, key, fromBase64url(s), new TextEncoder().encode(`${h}.${p}`));
  if (!ok) throw new Error('signature');
  const claims = json(p) as Record<string, unknown>;
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) throw new Error('claims');
  const seconds = Math.floor(now / 1000);
  if (claims.iss !== expect.issuer) throw new Error('issuer');
  const aud = claims.aud;
  if (!(aud === expect.audience || (Array.isArray(aud) && aud.includes(expect.audience)))) throw new Error('audience');
  if (typeof claims.exp !== 'number' || claims.exp <= seconds) throw new Error('expired');
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > seconds)) throw new Error('not yet valid');
  return claims;
}
