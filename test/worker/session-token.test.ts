/**
 * The session token's HS256 JWTs (worker/lib/hs256.ts, WebCrypto only) are
 * the tokens hono/jwt made before: each side accepts the other's, and a
 * tampered, expired, future-dated or other-algorithm token is refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sign, verify } from 'hono/jwt';
import { signHs256, verifyHs256 } from '../../worker/lib/hs256';

const SECRET = 'test-session-secret-9f8e7d6c5b4a';
const now = () => Math.floor(Date.now() / 1000);
const payload = () => ({ sub: 'e-1', vid: 'vrf_1', org: 'https://shop.example', pid: 'env', iat: now(), exp: now() + 600 });

describe('HS256 session tokens', () => {
  it('accepts what hono/jwt signs, and hono/jwt accepts what it signs', async () => {
    const p = payload();
    assert.deepEqual(await verifyHs256(await sign(p, SECRET, 'HS256'), SECRET), p);
    assert.deepEqual(await verify(await signHs256(p, SECRET), SECRET, 'HS256'), p);
    assert.equal(await signHs256(p, SECRET), await sign(p, SECRET, 'HS256'), 'byte for byte the same token');
  });

  it('refuses a tampered payload or signature, another secret, and a token of another algorithm', async () => {
    const token = await signHs256(payload(), SECRET);
    const [h, p, s] = token.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...payload(), vid: 'vrf_2' })).toString('base64url');
    await assert.rejects(verifyHs256(`${h}.${forged}.${s}`, SECRET));
    await assert.rejects(verifyHs256(`${h}.${p}.${s.slice(0, -2)}AA`, SECRET));
    await assert.rejects(verifyHs256(token, `${SECRET}x`));
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    await assert.rejects(verifyHs256(`${none}.${p}.`, SECRET));
    await assert.rejects(verifyHs256(`${none}.${p}.${s}`, SECRET));
    await assert.rejects(verifyHs256('not-a-token', SECRET));
    await assert.rejects(verifyHs256(`${h}.${p}.${s}.x`, SECRET));
  });

  it('refuses an expired token and one issued in the future', async () => {
    await assert.rejects(verifyHs256(await signHs256({ ...payload(), exp: now() - 1 }, SECRET), SECRET), /expired/);
    await assert.rejects(verifyHs256(await signHs256({ ...payload(), iat: now() + 120 }, SECRET), SECRET), /future/);
    assert.ok(await verifyHs256(await signHs256(payload(), SECRET), SECRET));
  });
});
