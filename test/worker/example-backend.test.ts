/**
 * The example partner backend (examples/partner-backend/server.mjs), run as
 * a partner runs it (its own process), against a JWKS served the way the
 * worker serves it: it accepts a genuine result token for its own account
 * only, and refuses every forgery a browser could hand it: one changed byte,
 * another key, `alg: none`, HS256 with the public key as secret, an expired
 * token, another audience, a sandbox key, another account's token, a
 * test-mode (`livemode: false`) token or webhook outside test mode. And end to
 * end against the real worker in workerd, delivering real webhooks: a script
 * that claims the partner's origin and sets a victim's `customerRef` cannot
 * rewrite the victim's record (webhooks are matched by verificationId).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { Webhook } from 'standardwebhooks';
import { signResultToken, type ResultClaims } from '../../worker/verifications/result-token';
import type { SigningKey } from '../../worker/verifications/signing-keys';
import { adultDateOfBirth, realNow } from '../support/dates';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';
import * as wait from '../support/wait';
import { newSigningJwk } from '../support/signing-keys';
import { freePort } from '../support/wrangler';

const WEBHOOK_SECRET = `whsec_${Buffer.from('0123456789abcdef0123').toString('base64')}`;
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
  backend = await startBackend(port, { KYC_WORKER: workerOrigin });
});
after(async () => {
  backend?.kill();
  await new Promise((ok) => jwksServer?.close(ok));
});

/** The example backend in its own process, as a partner runs it. */
async function startBackend(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['examples/partner-backend/server.mjs'], {
    env: { ...process.env, KYC_TEST_MODE: '', PORT: String(port), WEBHOOK_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((ok, fail) => {
    child.stdout.on('data', (d) => String(d).includes('partner backend on') && ok());
    child.once('exit', (code) => fail(new Error(`backend exited ${code}`)));
  });
  return child;
}

/** A browser session at the partner: its cookie and the account the partner's server gave it. */
async function visit(base = backendUrl): Promise<{ cookie: string; account: string }> {
  const res = await fetch(base + '/');
  const html = await res.text();
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, account: /id="account">([^<]+)</.exec(html)![1]! };
}

type Claims = ResultClaims & { livemode?: boolean };
const claims = (account: string, over: Partial<Claims> = {}): Claims => {
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

const hand = (cookie: string, resultToken: string, base = backendUrl) =>
  fetch(base + '/kyc/result-token', {
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
    const known = await (await fetch(`${backendUrl}/kyc/accounts/${account}`)).json();
    assert.equal(known.token, undefined, 'nothing recorded for the account');
  });

  it('refuses a test-mode token (livemode false or missing) outside test mode', async () => {
    const { cookie, account } = await visit();
    const sub = 'vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNP1';
    for (const [what, over] of [
      ['livemode: false', { livemode: false, sub }],
      ['no livemode claim', { livemode: undefined, sub }],
    ] as const) {
      const res = await hand(cookie, await signResultToken(key, claims(account, over)));
      assert.equal(res.status, 401, what);
      assert.match((await res.json()).error, /livemode/, what);
    }
  });

  it('refuses a token whose verification this server tied to another account, even with the right customer_ref', async () => {
    const victim = await visit();
    const attacker = await visit();
    const sub = 'vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNP2';
    const tied = await fetch(backendUrl + '/kyc/link', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: victim.cookie },
      body: JSON.stringify({ verificationId: sub }),
    });
    assert.equal(tied.status, 200);
    const res = await hand(attacker.cookie, await signResultToken(key, claims(attacker.account, { sub })));
    assert.equal(res.status, 401);
    assert.match((await res.json()).error, /another account/);
    const again = await fetch(backendUrl + '/kyc/link', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: attacker.cookie },
      body: JSON.stringify({ verificationId: sub }),
    });
    assert.equal(again.status, 409, 'a verification is tied to one account, once');
  });

  it('acknowledges (204, so it is not retried) but ignores a signed webhook with livemode false outside test mode, and records a live one by verificationId', async () => {
    const { cookie, account } = await visit();
    const vid = 'vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNP3';
    await fetch(backendUrl + '/kyc/link', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: cookie },
      body: JSON.stringify({ verificationId: vid }),
    });
    const send = async (livemode: boolean, n: number) => {
      const body = JSON.stringify({
        type: 'verification.completed',
        timestamp: new Date(realNow()).toISOString(),
        data: { verificationId: vid, entityId: 'e-1', checkStatus: 'CHECKED_SUCCESS_CLEAR', partnerOrigin: backendUrl, livemode },
      });
      const id = `msg_test_${n}`;
      const at = new Date(realNow());
      const signature = new Webhook(WEBHOOK_SECRET).sign(id, at, body);
      return fetch(backendUrl + '/kyc/webhooks', {
        method: 'POST',
        headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature },
        body,
      });
    };
    // Acknowledged, so the worker does not retry it for days, and not recorded.
    assert.equal((await send(false, 1)).status, 200);
    assert.equal((await (await fetch(`${backendUrl}/kyc/accounts/${account}`)).json()).webhook, undefined);
    assert.equal((await send(true, 2)).status, 204);
    assert.equal((await (await fetch(`${backendUrl}/kyc/accounts/${account}`)).json()).webhook?.checkStatus, 'CHECKED_SUCCESS_CLEAR');
  });
});

describe('the example partner backend against the worker (workerd, real webhooks)', () => {
  let worker: MiniflareWorker;
  let partner: ChildProcess;
  let partnerUrl = '';

  before(async () => {
    const port = await freePort();
    partnerUrl = `http://127.0.0.1:${port}`;
    worker = await startMiniflareWorker({
      vars: { ALLOWED_ORIGINS: partnerUrl, WEBHOOK_URL: `${partnerUrl}/kyc/webhooks`, WEBHOOK_SECRET, RESULT_POLL_SECONDS: '5' },
    });
    // The sandbox is the vendor (livemode false): the backend runs in its explicit test mode.
    partner = await startBackend(port, { KYC_WORKER: worker.url, KYC_TEST_MODE: '1' });
  });
  after(async () => {
    partner?.kill();
    await worker?.dispose();
  });

  /** A link made by whoever claims the partner's origin (a page, or a bare script), taken through the hosted flow. */
  async function verify(customerRef: string, ip: string, outcome: 'complete' | 'fail') {
    const api = (path: string, body: unknown) =>
      fetch(`${worker.url}/api/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: partnerUrl, 'CF-Connecting-IP': ip },
        body: JSON.stringify(body),
      });
    const res = await api('onboarding-link', {
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      dateOfBirth: adultDateOfBirth(),
      phone: { code: '+61', number: '0412 345 678' },
      consent: true,
      customerRef,
    });
    assert.equal(res.status, 200, await res.clone().text());
    const link = (await res.json()) as { url: string; session: string; verificationId: string };
    const flow = await fetch(link.url, { method: 'POST', body: new URLSearchParams({ outcome }), redirect: 'manual' });
    assert.equal(flow.status, 303);
    let answer: { checkStatus: string; resultToken?: string } = { checkStatus: 'CHECKING' };
    await wait.until(
      async () => {
        answer = await (await api('result', { session: link.session })).json();
        return answer.checkStatus !== 'CHECKING';
      },
      { what: 'a final result', timeoutMs: 45_000, detail: () => worker.output().slice(-2000) },
    );
    assert.notEqual(answer.checkStatus, 'CHECKING');
    return { ...link, ...answer };
  }

  async function until<T>(what: string, read: () => Promise<T>, ok: (t: T) => boolean): Promise<T> {
    const seen = await wait.until(async () => ((t) => ok(t) && { t })(await read()), {
      what,
      timeoutMs: 45_000,
      detail: () => worker.output().slice(-2000),
    });
    return seen.t;
  }

  it("a script that sets the victim's customerRef cannot rewrite the victim's record", async () => {
    // The victim, logged in at the partner: the page posts kyc-link's verificationId under the session.
    const victim = await visit(partnerUrl);
    const genuine = await verify(victim.account, '198.51.100.31', 'complete');
    const tied = await fetch(partnerUrl + '/kyc/link', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: victim.cookie },
      body: JSON.stringify({ verificationId: genuine.verificationId }),
    });
    const account = (id: string) => async () => (await fetch(`${partnerUrl}/kyc/accounts/${id}`)).json();
    await until('the genuine webhook', account(victim.account), (a) => a.webhook?.checkStatus === 'CHECKED_SUCCESS_CLEAR');

    // The attacker: a bare script claiming the partner's origin, the victim's reference, a flow failed on purpose.
    const forged = await verify(victim.account, '203.0.113.77', 'fail');
    assert.equal(forged.checkStatus, 'CHECKED_FAILED');
    // Its webhook has arrived once the backend shows it anywhere: under its own verification, or (the
    // hole this closes) as the victim's latest outcome.
    const seen = async () => ({
      own: await (await fetch(`${partnerUrl}/kyc/verifications/${forged.verificationId}`)).json().catch(() => ({})),
      victims: await account(victim.account)(),
    });
    const after = await until(
      'the attacker’s webhook',
      seen,
      (x) => x.own?.webhook !== undefined || x.victims.webhook?.verificationId === forged.verificationId,
    );
    assert.equal(after.victims.webhook.checkStatus, 'CHECKED_SUCCESS_CLEAR', "the victim's record is unchanged");
    assert.equal(after.victims.webhook.verificationId, genuine.verificationId);
    assert.equal(after.own.webhook.checkStatus, 'CHECKED_FAILED', 'recorded under its own verification');
    assert.equal(after.own.account, undefined, 'no account was credited with it');
    assert.equal(tied.status, 200);
    assert.deepEqual(after.victims.verificationIds, [genuine.verificationId]);
  });
});
