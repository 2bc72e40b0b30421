/**
 * Sealing a partner secret for the registry (`npm run partners`, tests): JWE
 * ECDH-ES + A256GCM with `jose`, to the worker's public key, with the
 * partnerId and field name as associated data that is not stored (see
 * sealing.ts, which opens it in the worker). Never imported by the worker.
 */
import { FlattenedEncrypt, importJWK, type JWK } from 'jose';
import type { SealedField } from './partner';
import { associatedData, publicJwk, SEALING_ALG, SEALING_ENC, SealingError } from './sealing';

/** Seals `plaintext` for (partnerId, field) to a public P-256 JWK that has a kid. */
export async function seal(publicKey: JWK, partnerId: string, field: SealedField, plaintext: string): Promise<string> {
  if (publicKey.kty !== 'EC' || publicKey.crv !== 'P-256' || !publicKey.kid)
    throw new SealingError('the sealing key must be a P-256 JWK with a kid');
  const key = await importJWK(publicJwk(publicKey), SEALING_ALG);
  const jwe = await new FlattenedEncrypt(new TextEncoder().encode(plaintext))
    .setProtectedHeader({ alg: SEALING_ALG, enc: SEALING_ENC, kid: publicKey.kid })
    .setAdditionalAuthenticatedData(associatedData(partnerId, field))
    .encrypt(key);
  // The associated data stays out of the stored value on purpose (sealing.ts).
  return [jwe.protected, jwe.encrypted_key ?? '', jwe.iv, jwe.ciphertext, jwe.tag].join('.');
}
