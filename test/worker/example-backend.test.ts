/**
 * The example partner backend (examples/partner-backend/server.mjs), run as
 * a partner runs it (its own process), against a JWKS served the way the
 * worker serves it: it accepts a genuine result token for its own account
 * only, and refuses every forgery a browser could hand it: one changed byte,
 * another key, `alg: none`, HS256 with the public key as secret, an expired
 * token, another audience, a sandbox key, another account's token.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { signResultToken, type ResultClaims } from '../../worker/verifications/result-token';
import type { SigningKey } from '../../worker/verifications/signing-keys';
import { realNow } from '../support/dates';
import { newSigningJwk } from '../support/signing-keys';
import { freePort } from '../support/wrangler';

let jwksServer: Server;
let backend: ChildProcess;
let backendUrl = '';
let workerOrigin = '';
let key: SigningKey;
let otherKey: SigningKey;
let sandboxKey: SigningKey;

async function importJwk(jwk: JsonWebKey & { kid: string }): Promise<SigningKey> {
  const { kty, crv, x, y, d } = jwk;
  const privateKey = await crypto.subtle.importKey('jwk', { kty, crv, x, y, d }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  return { kid: jwk.kid, privateKey, publicJwk: { kty: 'EC', crv: 'P-256', x: x!, y: y!, kid: jwk.kid, use: 'sig', alg: 'ES256' } };
}

before(async () => {
  key = await importJwk(await newSigningJwk('live-1'));
  otherKey = await importJwk(await newSigningJwk('live-1')); // same kid, another key
  sandboxKey = await importJwk(await newSigningJwk('sandbox-0123456789ab'));
  jwksServer = createServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [key.publicJwk, sandboxKey.publicJwk] })),
  );
  await new Promise<void>((ok) => jwksServer.listen(0, '127.0.0.1', ok));
  workerOrigin = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
  const port = await freePort();
  backendUrl = `http://127.0.0.1:${port}`;
  backend = spawn(process.execPath, ['examples/partner-backend/server.mjs'], {
    env: {
      ...process.env,
      KYC_WORKER: workerOrigin,
      PORT: String(port),
      WEBHOOK_SECRET: `whsec_${Buffer.from('0123456789abcdef0123').toString('base64')}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((ok, fail) => {
    backend.stdout!.on('data', (d) => String(d).includes('partner backend on') && ok());
    backend.once('exit', (code) => fail(new Error(`backend exited ${code}`)));
  });
});
after(async () => {
  backend?.kill();
  await new Promise((ok) => jwksServer?.close(ok));
});

/** A browser session at the partner: its cookie and the account the partner's server gave it. */
async function visit(): Promise<{ cookie: string; account: string }> {
  const res = await fetch(backendUrl + '/');
  const html = await res.text();
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, account: /id="account">([^<]+)</.exec(html)![1]! };
}

const claims = (account: string, over: Partial<ResultClaims> = {}): ResultClaims => {
  const iat = Math.floor(realNow() / 1000); // the backend is another process, with the real clock
  return {
    iss: workerOrigin,
    aud: backendUrl,
    sub: 'vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ',
    entity_id: 'e-1',
    check_status: 'CHECKED_SUCCESS_CLEAR',
    customer_ref: account,
    iat,
    exp: iat + 900,
    jti: 'vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ.result',
    livemode: true,
    ...over,
  };
};

const hand = (cookie: string, resultToken: string) =>
  fetch(backendUrl + '/kyc/result-token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: cookie },
    body: JSON.stringify({ resultToken }),
  });

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('the example partner backend', () => {
  it('accepts a genuine token for its own account, and records the outcome', async () => {
    const { cookie, account } = await visit();
    const res = await hand(cookie, await signResultToken(key, claims(account)));
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { checkStatus: 'CHECKED_SUCCESS_CLEAR', verificationId: 'vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ' });
    const known = await (await fetch(`${backendUrl}/kyc/accounts/${account}`)).json();
    assert.equal(known.token.checkStatus, 'CHECKED_SUCCESS_CLEAR');
  });

  it('refuses every forgery a browser could hand it', async () => {
    const { cookie, account } = await visit();
    const genuine = await signResultToken(key, claims(account));
    const [h, p, s] = genuine.split('.') as [string, string, string];
    const flip = (t: string, i: number) => t.slice(0, i) + (t[i] === 'A' ? 'B' : 'A') + t.slice(i + 1);
    const publicPem = Buffer.from(JSON.stringify(key.publicJwk)); // "the public key as the HMAC secret"
    const forgeries: Record<string, string> = {
      'one changed byte in the claims': `${h}.${flip(p, 20)}.${s}`,
      'one changed byte in the signature': `${h}.${p}.${flip(s, 10)}`,
      'another key (same kid)': await signResultToken(otherKey, claims(account)),
      'alg none': `${b64({ alg: 'none', typ: 'kyc-result+jwt' })}.${p}.`,
      'HS256 with the public key as secret': await new SignJWT({ ...claims(account) })
        .setProtectedHeader({ alg: 'HS256', kid: 'live-1', typ: 'kyc-result+jwt' })
        .sign(publicPem),
      expired: await signResultToken(
        key,
        claims(account, { iat: Math.floor(realNow() / 1000) - 2000, exp: Math.floor(realNow() / 1000) - 1000 }),
      ),
      'another audience': await signResultToken(key, claims(account, { aud: 'https://other-partner.example' })),
      'another issuer': await signResultToken(key, claims(account, { iss: 'https://evil.example' })),
      'a sandbox key': await signResultToken(sandboxKey, claims(account)),
      "another account's token": await signResultToken(key, claims('acct-someone-else')),
      'a status posted as the token': 'CHECKED_SUCCESS_CLEAR',
    };
    for (const [what, token] of Object.entries(forgeries)) {
      const res = await hand(cookie, token);
      assert.equal(res.status, 401, `${what}: ${await res.text()}`);
    }
    assert.deepEqual(await (await fetch(`${backendUrl}/kyc/accounts/${account}`)).json(), {}, 'nothing recorded for the account');
  });
});
