/**
 * The client secret of a verification the partner's server started
 * (`POST /v1/verifications`): `<verificationId>_secret_<43 characters>`, an
 * HMAC-SHA256 of the verification id under the session secret, so it is
 * never stored anywhere (not even hashed): the worker derives it again to
 * check it, and an idempotent replay answers it again. It stops working when
 * the verification is canceled or has ended (the routes check the record),
 * and every secret changes with SESSION_SECRET.
 */
import type { Env } from '../lib/env';
import type { WithDevSecrets } from '../lib/dev-secrets';
import { safeEqual } from '../lib/random';
import { sessionSecret } from '../lib/session-secret';
import { base64url } from '../../rules/base64url';

export const CLIENT_SECRET = /^(vrf_[0-9A-HJKMNP-TV-Z]{26})_secret_([A-Za-z0-9_-]{43})$/;

async function mac(secret: string, verificationId: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const sig = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`kyc-client-secret:${verificationId}`));
  return base64url(new Uint8Array(sig));
}

export async function clientSecretFor(env: Env, ports: WithDevSecrets, verificationId: string): Promise<string> {
  const secret = await sessionSecret(env, ports);
  if (!secret) throw new Error('no session secret'); // the configuration guard runs first
  return `${verificationId}_secret_${await mac(secret, verificationId)}`;
}

/** The verification id a client secret names, when it is genuine; undefined otherwise. */
export async function readClientSecret(env: Env, ports: WithDevSecrets, value: string | undefined): Promise<string | undefined> {
  const m = CLIENT_SECRET.exec(value ?? '');
  const secret = await sessionSecret(env, ports);
  if (!m || !secret) return undefined;
  return safeEqual(m[2]!, await mac(secret, m[1]!)) ? m[1] : undefined;
}
