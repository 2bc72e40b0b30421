/**
 * worker/lib/jwt-verify.ts (the /ops Cloudflare Access assertion, WebCrypto
 * only) against tokens jose signs: RS256 and ES256 verify; another key,
 * issuer or audience, an expired, not-yet-valid or exp-less token, another
 * algorithm and a `crit` header are refused; an unknown kid makes it fetch
 * the keys again, at most once per cooldown.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { remoteJwks, verifyJwt } from '../../worker/lib/jwt-verify';

const URL_ = 'https://team.example/cdn-cgi/access/certs';
const ISS = 'https://team.example';
const AUD = 'a'.repeat(64);
const published: object[] = [];
let fetches = 0;
const realFetch = globalThis.fetch;

before(() => {
  globalThis.fetch = (async (input: RequestInfo | URL) => {
    assert.equal(String(input), URL_);
    fetches++;
    return Response.json({ keys: published });
  }) as typeof fetch;
});
after(() => {
  globalThis.fetch = realFetch;
});

const rsa = await generateKeyPair('RS256');
const ec = await generateKeyPair('ES256');
const stranger = await generateKeyPair('RS256');
published.push(
  { ...(await exportJWK(rsa.publicKey)), kid: 'r1', alg: 'RS256', use: 'sig' },
  { ...(await exportJWK(ec.publicKey)), kid: 'e1' },
);

const now = () => Math.floor(Date.now() / 1000);
function sign(key: CryptoKey, header: { alg: string; kid?: string; crit?: string[] }, claims: JWTPayload = {}): Promise<string> {
  return new SignJWT({ iss: ISS, aud: AUD, exp: now() + 300, iat: now(), ...claims }).setProtectedHeader(header).sign(key);
}

/** A token signed by hand (jose refuses a `crit` it does not know, as it should). */
async function rawSign(header: object): Promise<string> {
  const b = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${b(header)}.${b({ iss: ISS, aud: AUD, exp: now() + 300 })}`;
  const sig = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', rsa.privateKey, new TextEncoder().encode(input));
  return `${input}.${Buffer.from(sig).toString('base64url')}`;
}

describe('JWT verification with WebCrypto', () => {
  it('accepts RS256 and ES256 tokens signed by a published key, with an audience list too', async () => {
    const keys = remoteJwks(URL_);
    const claims = await verifyJwt(await sign(rsa.privateKey, { alg: 'RS256', kid: 'r1' }), keys, { issuer: ISS, audience: AUD });
    assert.equal(claims.aud, AUD);
    await verifyJwt(await sign(ec.privateKey, { alg: 'ES256', kid: 'e1' }, { aud: ['other', AUD] }), keys, { issuer: ISS, audience: AUD });
    await verifyJwt(await rawSign({ alg: 'RS256', kid: 'r1' }), keys, { issuer: ISS, audience: AUD }); // the hand-signed form, without crit
  });

  it('refuses another key, issuer or audience, bad times, other algorithms and crit', async () => {
    const keys = remoteJwks(URL_);
    const expect = { issuer: ISS, audience: AUD };
    const refused = [
      sign(stranger.privateKey, { alg: 'RS256', kid: 'r1' }),
      sign(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { iss: 'https://other.example' }),
      sign(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { aud: 'b'.repeat(64) }),
      sign(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { exp: now() - 1 }),
      sign(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { exp: undefined }),
      sign(rsa.privateKey, { alg: 'RS256', kid: 'r1' }, { nbf: now() + 600 }),
      sign(rsa.privateKey, { alg: 'RS256', kid: 'e1' }), // the EC key's id: no RSA key fits
      rawSign({ alg: 'RS256', kid: 'r1', crit: ['x'], x: 1 }),
      Promise.resolve('not.a.jwt'),
      Promise.resolve('a.b'),
    ];
    for (const [i, token] of refused.entries()) {
      await assert.rejects(verifyJwt(await token, keys, expect), Error, `case ${i}`);
    }
    const [h, p] = (await sign(rsa.privateKey, { alg: 'RS256', kid: 'r1' })).split('.');
    const none = Buffer.from(JSON.stringify({ alg: 'none', kid: 'r1' })).toString('base64url');
    await assert.rejects(verifyJwt(`${none}.${p}.`, keys, expect), /algorithm/);
    const hs = Buffer.from(JSON.stringify({ alg: 'HS256', kid: 'r1' })).toString('base64url');
    await assert.rejects(verifyJwt(`${hs}.${p}.x`, keys, expect), /algorithm/);
    assert.ok(h);
  });

  it('fetches the keys again for an unknown kid, at most once per cooldown', async () => {
    const keys = remoteJwks(URL_, { cooldownMs: 0 });
    const rotated = await generateKeyPair('RS256');
    await verifyJwt(await sign(rsa.privateKey, { alg: 'RS256', kid: 'r1' }), keys, { issuer: ISS, audience: AUD });
    const before = fetches;
    published.push({ ...(await exportJWK(rotated.publicKey)), kid: 'r2' });
    await verifyJwt(await sign(rotated.privateKey, { alg: 'RS256', kid: 'r2' }), keys, { issuer: ISS, audience: AUD });
    assert.equal(fetches, before + 1, 'one fetch for the new kid');
    const slow = remoteJwks(URL_, { cooldownMs: 60_000 });
    await verifyJwt(await sign(rsa.privateKey, { alg: 'RS256', kid: 'r1' }), slow, { issuer: ISS, audience: AUD });
    const once = fetches;
    await assert.rejects(verifyJwt(await sign(rotated.privateKey, { alg: 'RS256', kid: 'r9' }), slow, { issuer: ISS, audience: AUD }));
    assert.equal(fetches, once, 'no fetch within the cooldown');
  });
});
