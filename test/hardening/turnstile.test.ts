/**
 * Turnstile in workerd: with TURNSTILE_SECRET_KEY set, /api/onboarding-link
 * needs a token that a local stand-in for Cloudflare's siteverify
 * (TURNSTILE_VERIFY_URL) accepts. Tokens are single-use there, as at
 * Cloudflare. Missing token 400, refused token 403, accepted token passes,
 * siteverify down or unreadable 502; never a vendor call without a pass.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { happyVendor, startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import type { RunningWorker } from '../support/wrangler';
import { assertErrorObject, assertNoLeak, freshIp, headerText, startSnapshotWorker } from './support';
import { until } from '../support/wait';
import { portIsFree } from '../support/wrangler';
import { adultDateOfBirth } from '../support/dates';

const TS_SECRET = 'ts-secret-0x4AAAAAAB-local-Pz9';
const TIMEOUT_MS = 1000;
const MARGIN_MS = 2000;

type Mode = 'normal' | '500' | 'garbage' | 'hang';

interface Verify {
  secret: string | null;
  response: string | null;
  remoteip: string | null;
}

/** A stand-in for https://challenges.cloudflare.com/turnstile/v0/siteverify on 127.0.0.1. */
async function startSiteverify() {
  let mode: Mode = 'normal';
  const seen: Verify[] = [];
  const spent = new Set<string>();
  const sockets = new Set<Socket>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const form = await new Request('http://siteverify.local/', {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? '' },
      body: Buffer.concat(chunks),
    })
      .formData()
      .catch(() => new FormData());
    const v: Verify = {
      secret: form.get('secret') as string | null,
      response: form.get('response') as string | null,
      remoteip: form.get('remoteip') as string | null,
    };
    seen.push(v);
    if (mode === 'hang') return;
    if (mode === '500') {
      res.writeHead(500, { 'Content-Type': 'text/html' });
      return void res.end('<h1>500</h1>');
    }
    if (mode === 'garbage') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      return void res.end('ok');
    }
    const token = v.response ?? '';
    let body: Record<string, unknown>;
    if (v.secret !== TS_SECRET) body = { success: false, 'error-codes': ['invalid-input-secret'] };
    else if (!token.startsWith('good-')) body = { success: false, 'error-codes': ['invalid-input-response'] };
    else if (spent.has(token)) body = { success: false, 'error-codes': ['timeout-or-duplicate'] };
    else {
      spent.add(token);
      body = {
        success: true,
        challenge_ts: new Date().toISOString(),
        hostname: '127.0.0.1',
        action: 'kyc-onboarding-link',
        'error-codes': [],
      };
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/turnstile/v0/siteverify`,
    seen,
    setMode: (m: Mode) => (mode = m),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

let vendor: FakeVendor;
let siteverify: Awaited<ReturnType<typeof startSiteverify>>;
let worker: RunningWorker;

before(async () => {
  vendor = await startFakeVendor();
  siteverify = await startSiteverify();
  worker = await startSnapshotWorker({
    vars: {
      KYC_BASE_URL: vendor.url,
      KYC_API_KEY: 'ts-api-key-77',
      KYC_CUSTOMER_ID: 'ts-customer',
      SESSION_SECRET: 'ts-session-secret-5566-xxxxxxxxx',
      KYC_TIMEOUT_MS: String(TIMEOUT_MS),
      TURNSTILE_SECRET_KEY: TS_SECRET,
      TURNSTILE_VERIFY_URL: siteverify.url,
    },
  });
});
after(async () => {
  await worker?.stop();
  await siteverify?.close();
  await vendor?.close();
});

const person = (turnstileToken?: string) => ({
  name: { givenName: 'Ana', familyName: 'Lima' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
  ...(turnstileToken === undefined ? {} : { turnstileToken }),
});

async function link(body: unknown, extra: Record<string, string> = {}, ip = freshIp(40)) {
  const t0 = performance.now();
  const res = await fetch(`${worker.url}/api/onboarding-link`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: worker.url, 'CF-Connecting-IP': ip, ...extra },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assertNoLeak(text + headerText(res.headers), [TS_SECRET], 'answer');
  return { status: res.status, text, headers: res.headers, ms: performance.now() - t0 };
}

function reset() {
  vendor.requests.length = 0;
  siteverify.seen.length = 0;
  siteverify.setMode('normal');
}

describe('Turnstile bot check, in workerd', () => {
  it('refuses a request without a token with 400 on turnstileToken, asking neither siteverify nor the vendor', async () => {
    reset();
    const a = await link(person());
    assert.equal(a.status, 400, a.text);
    const e = assertErrorObject(a.text, a.headers, 'missing token');
    assert.deepEqual(e.issues, [{ issue: 'is required', issueLocation: 'turnstileToken' }]);
    assert.equal(siteverify.seen.length, 0);
    assert.equal(vendor.requests.length, 0);
  });

  it('refuses a token siteverify rejects with 403, without asking the vendor; sends our secret and the client address', async () => {
    reset();
    const ip = freshIp(40);
    const a = await link(person('forged-token-123'), {}, ip);
    assert.equal(a.status, 403, a.text);
    assert.equal(assertErrorObject(a.text, a.headers, 'bad token').errorCode, 'TURNSTILE_FAILED');
    assert.deepEqual(siteverify.seen, [{ secret: TS_SECRET, response: 'forged-token-123', remoteip: ip }]);
    assert.equal(vendor.requests.length, 0);
  });

  it('lets an accepted token through, once: the same token again is refused', async () => {
    reset();
    const a = await link(person('good-token-1'));
    assert.equal(a.status, 200, a.text);
    assert.equal(vendor.requests.length, 1);
    const again = await link(person('good-token-1'));
    assert.equal(again.status, 403, again.text);
    assert.equal(vendor.requests.length, 1);
  });

  it('replays an Idempotency-Key retry without a second bot check (its token is spent), even with a fresh token', async () => {
    reset();
    const key = `ts-idem-${Date.now()}`;
    const first = await link(person('good-token-2'), { 'Idempotency-Key': key });
    assert.equal(first.status, 200, first.text);
    const retry = await link(person('good-token-2'), { 'Idempotency-Key': key });
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.text, first.text);
    const fresh = await link(person('good-token-3'), { 'Idempotency-Key': key });
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.headers.get('idempotent-replayed'), 'true');
    assert.equal(siteverify.seen.length, 1, 'one bot check');
    assert.equal(vendor.requests.length, 1, 'one vendor call');
  });

  it('frees the Idempotency-Key when the bot check fails, so the person can pass it and go on', async () => {
    reset();
    const key = `ts-idem-fail-${Date.now()}`;
    const failed = await link(person('forged-2'), { 'Idempotency-Key': key });
    assert.equal(failed.status, 403);
    const passed = await link(person('good-token-4'), { 'Idempotency-Key': key });
    assert.equal(passed.status, 200, passed.text);
    assert.equal(vendor.requests.length, 1);
  });

  it('lets a retry go on without a second token when the vendor failed after the bot check passed (the token is spent)', async () => {
    reset();
    const key = `ts-idem-vendor-down-${Date.now()}`;
    vendor.behave((_req, res) => {
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end('{"errorCode":"DOWN","errorMsg":"down","issues":[],"requestId":"v"}');
    });
    const failed = await link(person('good-token-6'), { 'Idempotency-Key': key });
    assert.equal(failed.status, 502, failed.text);
    vendor.behave(happyVendor);
    const retry = await link(person('good-token-6'), { 'Idempotency-Key': key });
    assert.equal(retry.status, 200, retry.text);
    assert.equal(siteverify.seen.length, 1, 'one bot check');
    assert.equal(vendor.requests.length, 2, 'the vendor was asked again: its first answer was a definite failure');
    const replay = await link(person('good-token-6'), { 'Idempotency-Key': key });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  });

  it('does not let another request ride on a key whose request passed the bot check', async () => {
    reset();
    const key = `ts-idem-other-body-${Date.now()}`;
    vendor.behave((_req, res) => {
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end('{"errorCode":"DOWN","errorMsg":"down","issues":[],"requestId":"v"}');
    });
    assert.equal((await link(person('good-token-7'), { 'Idempotency-Key': key })).status, 502);
    vendor.behave(happyVendor);
    const other = await link({ ...person('forged-3'), name: { familyName: 'Other' } }, { 'Idempotency-Key': key });
    assert.equal(other.status, 403, other.text);
    assert.equal(vendor.requests.length, 1);
  });

  for (const mode of ['500', 'garbage', 'hang'] as const) {
    it(`answers 502 in time when siteverify ${mode === 'hang' ? 'never answers' : mode === '500' ? 'answers 500' : 'answers garbage'}, without asking the vendor`, async () => {
      reset();
      siteverify.setMode(mode);
      const a = await link(person(`good-token-${mode}`));
      assert.equal(a.status, 502, a.text);
      assert.equal(assertErrorObject(a.text, a.headers, mode).errorCode, 'VENDOR_ERROR');
      assert.ok(a.ms < TIMEOUT_MS + MARGIN_MS, `${Math.round(a.ms)} ms`);
      assert.equal(vendor.requests.length, 0);
    });
  }

  it('answers 502 when siteverify is unreachable, without asking the vendor', async () => {
    reset();
    await siteverify.close();
    const port = Number(new URL(siteverify.url).port);
    await until(() => portIsFree(port), { what: `nothing listening on siteverify's port ${port}`, timeoutMs: 10_000 });
    const a = await link(person('good-token-down'));
    assert.equal(a.status, 502, a.text);
    assert.equal(vendor.requests.length, 0);
  });
});
