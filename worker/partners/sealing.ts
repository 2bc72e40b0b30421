/**
 * Sealing of partner secrets (vendor API key, Turnstile secret, webhook
 * secret): JWE with ECDH-ES key agreement and A256GCM, to the worker's
 * public P-256 key, so `npm run partners` needs only the public half and a
 * dump of the KV namespace reveals nothing. The associated data is the
 * partnerId and the field name, and it is not stored with the value: the
 * worker supplies what it expects when opening, so a sealed value copied to
 * another partner or another field fails its authentication tag instead of
 * opening. Stored form: the JWE compact serialisation (its protected header
 * names the key by `kid`, so PARTNER_SEALING_KEY can hold old and new keys
 * while it rotates).
 *
 * Sealing (`seal.ts`, with `jose`) happens in `npm run partners`; the worker
 * only opens, with WebCrypto (RFC 7518 §4.6 key agreement and Concat KDF,
 * then AES-GCM): jose's whole JWE decryption costs the worker bundle about
 * 14 KB gzip, this about 1. Tests seal with jose and open with this.
 */
import type { JWK } from 'jose';
import { base64url, fromBase64url } from '../../rules/base64url';
import type { Config } from '../config';
import type { SealedField } from './partner';

export const SEALING_ALG = 'ECDH-ES';
export const SEALING_ENC = 'A256GCM';

/**
 * While the sandbox is the vendor and PARTNER_SEALING_KEY is unset, this
 * development key opens (and `npm run partners` seals to) the local
 * registry, so `npm start` needs no setup. It is public, like the sandbox's
 * own keys; with a real vendor it is never used.
 */
export const DEV_SEALING_KEY: JWK = {
  kty: 'EC',
  crv: 'P-256',
  kid: 'sandbox-dev-sealing-1',
  x: 'NBIGmWQacitJFZJUjopvqiE9EvpwAVTqf69b-j4AxbA',
  y: 'dytw5JCr15HCCPSXPdJ6nW1LKmiLM1IJtIHKBX_VFQo',
  d: 'vLwFj4BYLMUNjUDJkJ8_6GEIhhAZT3ytMbh6sgWfzas',
};

export class SealingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealingError';
  }
}

/** What a sealed value is bound to. */
export function associatedData(partnerId: string, field: SealedField): Uint8Array {
  return new TextEncoder().encode(`kyc-onboard partner secret\u0000${partnerId}\u0000${field}`);
}

/** The public half of a private JWK (what the CLI seals to). */
export function publicJwk(jwk: JWK): JWK {
  const { kty, crv, x, y, kid } = jwk;
  return { kty, crv, x, y, ...(kid ? { kid } : {}) };
}

function isP256(jwk: unknown): jwk is JWK & { kid: string } {
  const k = jwk as JWK | null;
  return (
    !!k &&
    typeof k === 'object' &&
    k.kty === 'EC' &&
    k.crv === 'P-256' &&
    typeof k.x === 'string' &&
    typeof k.y === 'string' &&
    typeof k.kid === 'string' &&
    k.kid.length > 0
  );
}

/**
 * The private keys that may open sealed values, by kid. Throws SealingError
 * when PARTNER_SEALING_KEY is set but not a private P-256 JWK (or array of
 * them) with a kid, or when it is unset with a real vendor. `devKey`: the
 * sandbox's development key (the `sandboxDefaults` port), used only while
 * the sandbox is the vendor and the setting is unset.
 */
export function sealingKeys(cfg: Pick<Config, 'secrets' | 'vendor'>, devKey?: JWK): Map<string, JWK> {
  const raw = cfg.secrets.partnerSealingKey;
  if (!raw) {
    const dev = cfg.vendor.sandbox ? devKey : undefined;
    if (dev) return new Map([[dev.kid!, dev]]);
    throw new SealingError('PARTNER_SEALING_KEY is not set');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new SealingError('PARTNER_SEALING_KEY is not JSON');
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  const keys = new Map<string, JWK>();
  for (const k of list) {
    if (!isP256(k) || typeof k.d !== 'string')
      throw new SealingError('PARTNER_SEALING_KEY holds something other than private P-256 JWKs with a kid');
    keys.set(k.kid, k);
  }
  if (!keys.size) throw new SealingError('PARTNER_SEALING_KEY is empty');
  return keys;
}

/** The kid a sealed value was sealed to (for `list`: which values still need re-sealing). */
export function sealedKid(sealed: string): string | undefined {
  try {
    const header = JSON.parse(new TextDecoder().decode(b64u(sealed.split('.')[0]!))) as { kid?: unknown };
    return typeof header.kid === 'string' ? header.kid : undefined;
  } catch {
    return undefined;
  }
}

function b64u(s: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new SealingError('not base64url');
  return fromBase64url(s);
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function u32(n: number): Uint8Array {
  return new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
}

const lengthPrefixed = (b: Uint8Array) => concat(u32(b.length), b);

const imported = new Map<string, Promise<CryptoKey>>();

function privateKey(kid: string, jwk: JWK): Promise<CryptoKey> {
  const cacheKey = `${kid}|${jwk.d}`;
  let key = imported.get(cacheKey);
  if (!key) {
    const { kty, crv, x, y, d } = jwk;
    key = crypto.subtle.importKey('jwk', { kty: kty!, crv, x, y, d }, { name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
    imported.set(cacheKey, key);
    key.catch(() => imported.delete(cacheKey));
  }
  return key;
}

/** Opens a value sealed for (partnerId, field); throws SealingError when it cannot. */
export async function open(keys: Map<string, JWK>, partnerId: string, field: SealedField, sealed: string): Promise<string> {
  const parts = sealed.split('.');
  const kid = sealedKid(sealed);
  const jwk = kid ? keys.get(kid) : undefined;
  if (!jwk || parts.length !== 5 || parts[1] !== '') throw new SealingError(`no sealing key opens ${field}`);
  const [protectedB64, , ivB64, ciphertextB64, tagB64] = parts as [string, string, string, string, string];
  try {
    const header = JSON.parse(new TextDecoder().decode(b64u(protectedB64))) as {
      alg?: string;
      enc?: string;
      epk?: JWK;
      apu?: string;
      apv?: string;
    };
    if (header.alg !== SEALING_ALG || header.enc !== SEALING_ENC || header.epk?.kty !== 'EC' || header.epk.crv !== 'P-256')
      throw new Error('header');
    const epk = await crypto.subtle.importKey(
      'jwk',
      { kty: 'EC', crv: 'P-256', x: header.epk.x, y: header.epk.y },
      { name: 'ECDH', namedCurve: 'P-256' },
      false,
      [],
    );
    const z = new Uint8Array(
      await crypto.subtle.deriveBits(
        { name: 'ECDH', public: epk } as unknown as Parameters<SubtleCrypto['deriveBits']>[0],
        await privateKey(kid!, jwk),
        256,
      ),
    );
    // Concat KDF (NIST SP 800-56A) as RFC 7518 §4.6.2 applies it: one SHA-256 round gives the 256-bit key.
    const otherInfo = concat(
      lengthPrefixed(new TextEncoder().encode(SEALING_ENC)),
      lengthPrefixed(header.apu ? b64u(header.apu) : new Uint8Array()),
      lengthPrefixed(header.apv ? b64u(header.apv) : new Uint8Array()),
      u32(256),
    );
    const cek = new Uint8Array(await crypto.subtle.digest('SHA-256', concat(u32(1), z, otherInfo)));
    const key = await crypto.subtle.importKey('raw', cek, 'AES-GCM', false, ['decrypt']);
    // JWE's additional data: the protected header, then the caller's associated data (§5.1 step 14).
    const aad = new TextEncoder().encode(`${protectedB64}.${base64url(associatedData(partnerId, field))}`);
    const plaintext = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: b64u(ivB64), additionalData: aad, tagLength: 128 },
      key,
      concat(b64u(ciphertextB64), b64u(tagB64)),
    );
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(plaintext);
  } catch {
    throw new SealingError(`${field} does not open for this partner`);
  }
}
