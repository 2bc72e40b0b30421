/**
 * The result token: a compact JWS (ES256, WebCrypto) a partner's server can
 * verify offline against our JWKS with any JOSE library. Header `{alg: ES256,
 * kid, typ: kyc-result+jwt}`; claims as docs/trusted-outcomes.md ("The result token") names them. Nothing
 * personal: the entity id is the vendor's opaque id.
 */
import { base64url } from '../../rules/base64url';
import type { SigningKey } from './signing-keys';
import type { VendorId, VendorResult } from '../vendors/adapter';

/** Lifetime of a token: long enough to hand from the page to its server. */
export const RESULT_TOKEN_TTL_SECONDS = 15 * 60;

export interface ResultClaims {
  iss: string;
  aud: string;
  sub: string;
  /** Absent after a redaction. */
  entity_id?: string;
  /** The vendor's word (deprecated: read `result`). */
  check_status: string;
  /** The outcome in our words: decide from this. */
  result?: VendorResult;
  /** The vendor the verification was made with (tokens issued before there was a choice have none: `idv`). */
  vendor?: VendorId;
  customer_ref?: string;
  /**
   * Who set `customer_ref`: `server` (the partner's server, through `/v1`) or `page` (a browser, which anyone
   * can script with the partner's origin): only a server-set reference identifies the partner's customer.
   */
  customer_ref_source?: 'server' | 'page';
  iat: number;
  exp: number;
  jti: string;
  /** False when the sandbox was the vendor: a test outcome, never to be acted on as a real one. */
  livemode: boolean;
}

const encoder = new TextEncoder();

const part = (value: unknown) => base64url(encoder.encode(JSON.stringify(value)));

export async function signResultToken(key: SigningKey, claims: ResultClaims): Promise<string> {
  const input = `${part({ alg: 'ES256', kid: key.kid, typ: 'kyc-result+jwt' })}.${part(claims)}`;
  // WebCrypto's ECDSA signature is r‖s (IEEE P1363), exactly what JWS wants.
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key.privateKey, encoder.encode(input));
  return `${input}.${base64url(signature)}`;
}
