/** Result-signing keys made for this test run (nothing committed can sign). */
export async function newSigningJwk(kid: string): Promise<JsonWebKey & { kid: string }> {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  return { ...(await crypto.subtle.exportKey('jwk', pair.privateKey)), kid };
}

let memo: Promise<string> | undefined;
/** `RESULT_SIGNING_KEYS` for workers under test with a real (fake) vendor. */
export const testSigningKeys = (): Promise<string> => (memo ??= newSigningJwk('test-run-key').then((k) => JSON.stringify([k])));
