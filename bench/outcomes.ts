/**
 * Trusted outcomes, measured: what issuing a result token costs,
 * and how fast the worker delivers webhooks from its queue.
 *   - /api/result for a verification with a final status (the record is read
 *     from its Durable Object and a fresh ES256 token is signed per request),
 *     side by side, in the same round-robin, with /api/result while the check
 *     is still running (the record alone: no vendor call within the poll
 *     interval, no token) and with the JWKS route (the keys alone).
 *   - ES256 signatures per second with WebCrypto in node (the signing alone).
 *   - Webhook delivery: N verifications completed at the sandbox and their
 *     results asked once, then the time until a local receiver has all N
 *     `verification.completed` deliveries (queue batch timeout included).
 * The worker is the deployable bundle in workerd through Miniflare
 * (lib/miniflare-worker.ts) with a fake vendor in a process of its own.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { signResultToken } from '../worker/verifications/result-token';
import { ROOT } from '../test/support/wrangler';
import { newSigningJwk } from '../test/support/signing-keys';
import { startMiniflareWorker, type MiniflareWorker } from './lib/miniflare-worker';
import { startVendorProcess } from './lib/vendor-process';
import { round, sleep } from './lib/stats';
import { LINK_BODY, PARTNER_ORIGIN, rounds, type Summary, type Target } from './load';

export interface OutcomesResult {
  resultFinal: Summary;
  resultChecking: Summary;
  jwks: Summary;
  /** Extra p50 of a final answer (token signed) over a running one, ms. */
  tokenCostP50Ms: number;
  signaturesPerSecondNode: number;
  webhooks: { verifications: number; seconds: number; perSecond: number };
}

export interface OutcomesOptions {
  connections: number;
  durationS: number;
  repeats: number;
  webhookCount: number;
  log: (s: string) => void;
}

/** Requests come from a partner page, configured as a partner's origin is (ALLOWED_ORIGINS). */
const ORIGIN_HEADERS = () => ({ 'Content-Type': 'application/json', Origin: PARTNER_ORIGIN });

async function linkSession(worker: MiniflareWorker, ip: string): Promise<{ session: string; url: string }> {
  const res = await fetch(`${worker.url}/api/onboarding-link`, {
    method: 'POST',
    headers: { ...ORIGIN_HEADERS(), 'CF-Connecting-IP': ip },
    body: LINK_BODY,
  });
  if (res.status !== 200) throw new Error(`link: ${res.status} ${await res.text()}`);
  return (await res.json()) as { session: string; url: string };
}

async function signaturesPerSecond(): Promise<number> {
  const jwk = await newSigningJwk('bench');
  const { kty, crv, x, y, d } = jwk;
  const privateKey = await crypto.subtle.importKey('jwk', { kty, crv, x, y, d }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  const key = {
    kid: 'bench',
    privateKey,
    publicJwk: { kty: 'EC' as const, crv: 'P-256' as const, x: x!, y: y!, kid: 'bench', use: 'sig' as const, alg: 'ES256' as const },
  };
  const claims = {
    iss: 'https://kyc.example',
    aud: 'https://shop.example',
    sub: 'vrf_x',
    entity_id: 'e',
    check_status: 'CHECKED_SUCCESS_CLEAR',
    iat: 0,
    exp: 900,
    jti: 'j',
    livemode: true,
  };
  for (let i = 0; i < 200; i++) await signResultToken(key, claims); // warm-up
  const n = 2000;
  const t = performance.now();
  for (let i = 0; i < n; i++) await signResultToken(key, claims);
  return Math.round(n / ((performance.now() - t) / 1000));
}

export async function outcomes(o: OutcomesOptions): Promise<OutcomesResult> {
  const vendor = await startVendorProcess();
  let worker: MiniflareWorker | undefined;
  let sandboxWorker: MiniflareWorker | undefined;
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (body.includes('verification.completed')) delivered.add(String(req.headers['webhook-id']));
      res.writeHead(204).end();
    });
  });
  const delivered = new Set<string>();
  try {
    worker = await startMiniflareWorker(join(ROOT, 'wrangler.toml'), {
      ALLOWED_ORIGINS: PARTNER_ORIGIN,
      KYC_BASE_URL: vendor.url,
      KYC_API_KEY: 'bench-key',
      KYC_CUSTOMER_ID: 'bench-customer',
      SESSION_SECRET: `bench-${crypto.randomUUID()}`,
    });
    // The fake vendor answers every result final: the first /api/result makes the verification final.
    const final = await linkSession(worker, '203.0.113.1');
    const first = await fetch(`${worker.url}/api/result`, {
      method: 'POST',
      headers: ORIGIN_HEADERS(),
      body: JSON.stringify({ session: final.session }),
    });
    const firstAnswer = (await first.json()) as { checkStatus?: string; resultToken?: string };
    if (first.status !== 200 || !firstAnswer.resultToken) throw new Error(`result: ${first.status} ${JSON.stringify(firstAnswer)}`);
    // A verification that stays CHECKING: its first poll is due only after RESULT_POLL_SECONDS,
    // and until then every /api/result answers from the record. (Asked once first, so the poll is spent.)
    const running = await linkSession(worker, '203.0.113.2');
    const targets: Record<'resultFinal' | 'resultChecking' | 'jwks', Target> = {
      resultFinal: {
        method: 'POST',
        url: `${worker.url}/api/result`,
        headers: ORIGIN_HEADERS(),
        body: JSON.stringify({ session: final.session }),
      },
      resultChecking: {
        method: 'POST',
        url: `${worker.url}/api/result`,
        headers: ORIGIN_HEADERS(),
        body: JSON.stringify({ session: running.session }),
      },
      jwks: { method: 'GET', url: `${worker.url}/.well-known/jwks.json`, headers: {} },
    };
    const r = await rounds(targets, o.connections, o.durationS, o.repeats, o.log);
    await worker.stop();
    worker = undefined;

    // Webhook delivery rate, through the real queue, to a local receiver (the sandbox as the vendor: http to loopback is allowed there).
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    const secret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64')}`;
    sandboxWorker = await startMiniflareWorker(join(ROOT, 'wrangler.toml'), {
      ALLOWED_ORIGINS: PARTNER_ORIGIN,
      WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      WEBHOOK_SECRET: secret,
    });
    const sessions: { session: string; checkId: string }[] = [];
    for (let i = 0; i < o.webhookCount; i++) {
      const { session, url } = await linkSession(sandboxWorker, `198.18.${i >> 8}.${i & 255}`);
      // Each from its own address, as people are: one address is limited to 60 requests a minute.
      const flow = await fetch(url.replace(/^https?:\/\/[^/]+/, sandboxWorker.url), {
        method: 'POST',
        headers: { 'CF-Connecting-IP': `198.20.${i >> 8}.${i & 255}` },
        body: new URLSearchParams({ outcome: 'complete' }),
        redirect: 'manual',
      });
      const location = flow.headers.get('location');
      if (flow.status !== 303 || !location) throw new Error(`hosted flow ${i + 1}: ${flow.status} ${(await flow.text()).slice(0, 200)}`);
      sessions.push({ session, checkId: new URL(location).searchParams.get('checkId')! });
    }
    const t0 = performance.now();
    await Promise.all(
      sessions.map((s, i) =>
        fetch(`${sandboxWorker!.url}/api/result`, {
          method: 'POST',
          headers: { ...ORIGIN_HEADERS(), 'CF-Connecting-IP': `198.19.${i >> 8}.${i & 255}` },
          body: JSON.stringify(s),
        }).then((r) => r.arrayBuffer()),
      ),
    );
    const deadline = Date.now() + 120_000;
    while (delivered.size < o.webhookCount && Date.now() < deadline) await sleep(20);
    const seconds = (performance.now() - t0) / 1000;
    if (delivered.size < o.webhookCount) throw new Error(`only ${delivered.size} of ${o.webhookCount} webhooks delivered in 120 s`);
    return {
      resultFinal: r.resultFinal,
      resultChecking: r.resultChecking,
      jwks: r.jwks,
      tokenCostP50Ms: round(r.resultFinal.p50 - r.resultChecking.p50, 3),
      signaturesPerSecondNode: await signaturesPerSecond(),
      webhooks: { verifications: o.webhookCount, seconds: round(seconds, 2), perSecond: round(o.webhookCount / seconds, 1) },
    };
  } finally {
    await worker?.stop();
    await sandboxWorker?.stop();
    await vendor.stop();
    receiver.close();
  }
}
