#!/usr/bin/env node
// An example partner backend: the partner's own site, which embeds
// <kyc-onboard> and must TRUST the outcome. It never believes the browser:
//   - POST /kyc/result-token: the page hands over `resultToken` from the
//     `kyc-complete` event; the server verifies it against the worker's JWKS
//     (issuer, audience = this site's origin, ES256, exp) and checks that
//     `customer_ref` is the account of this browser's own session.
//   - POST /kyc/webhooks: signed webhooks (Standard Webhooks), verified with
//     the webhook secret; the outcome is recorded even if the person never
//     comes back.
// Run: KYC_WORKER=http://127.0.0.1:8787 WEBHOOK_SECRET=whsec_… node server.mjs
// Sandbox keys (`kid` starting `sandbox-`) are refused unless
// ACCEPT_SANDBOX_KEYS=1: a development key must never pass in production.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { Webhook } from 'standardwebhooks';

const WORKER = (process.env.KYC_WORKER ?? 'http://127.0.0.1:8787').replace(/\/$/, '');
const PORT = Number(process.env.PORT ?? 8790);
const HOST = process.env.HOST ?? '127.0.0.1';
const ORIGIN = process.env.PUBLIC_ORIGIN ?? `http://${HOST}:${PORT}`;
const ACCEPT_SANDBOX_KEYS = process.env.ACCEPT_SANDBOX_KEYS === '1';
const jwks = createRemoteJWKSet(new URL(`${WORKER}/.well-known/jwks.json`));
const webhook = process.env.WEBHOOK_SECRET ? new Webhook(process.env.WEBHOOK_SECRET) : undefined;

/** What this partner knows, per account of its own: verified outcomes only. */
const accounts = new Map(); // account → { token?: {...}, webhook?: {...} }
const sessions = new Map(); // this site's session cookie → account

/** The ten lines that matter: verify the token, then compare customer_ref with the account you expect. */
export async function verifyResultToken(token, expectedAccount) {
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer: WORKER,
    audience: ORIGIN,
    algorithms: ['ES256'],
    typ: 'kyc-result+jwt',
  });
  if (!ACCEPT_SANDBOX_KEYS && String(protectedHeader.kid).startsWith('sandbox-')) throw new Error('sandbox key');
  if (payload.customer_ref !== expectedAccount) throw new Error('token is for another account');
  return payload; // payload.check_status is the outcome; payload.sub the verificationId
}

const record = (account, kind, value) => accounts.set(account, { ...accounts.get(account), [kind]: value });
const read = (req) =>
  new Promise((ok) => {
    let b = '';
    req.on('data', (d) => (b += d));
    req.on('end', () => ok(b));
  });
const cookie = (req) => /(?:^|;\s*)sid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
const json = (res, status, body) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

const page = (account) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner: open an account</title>
<script type="module" src="${WORKER}/widget.js"></script></head>
<body>
<h1>Open your account</h1>
<p>Account <strong id="account">${account}</strong></p>
<kyc-onboard endpoint="${WORKER}/api" customer-ref="${account}"></kyc-onboard>
<p id="server-says" role="status"></p>
<script type="module">
  // The page only forwards the token; the decision is the server's.
  document.addEventListener('kyc-complete', async (e) => {
    const res = await fetch('/kyc/result-token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ resultToken: e.detail.resultToken }) });
    const answer = await res.json();
    document.getElementById('server-says').textContent = res.ok ? 'Server verified: ' + answer.checkStatus : 'Server refused: ' + answer.error;
  });
</script>
</body></html>`;

export const server = createServer(async (req, res) => {
  const url = new URL(req.url, ORIGIN);
  try {
    if (req.method === 'GET' && url.pathname === '/') {
      // This site's own session decides the account; the page cannot choose it.
      let sid = cookie(req);
      if (!sid || !sessions.has(sid)) {
        sid = randomUUID();
        sessions.set(sid, `acct-${randomUUID().slice(0, 8)}`);
      }
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Set-Cookie': `sid=${sid}; Path=/; HttpOnly; SameSite=Lax` });
      return res.end(page(sessions.get(sid)));
    }
    if (req.method === 'POST' && url.pathname === '/kyc/result-token') {
      const account = sessions.get(cookie(req));
      if (!account) return json(res, 401, { error: 'no session' });
      let body;
      try {
        body = JSON.parse(await read(req));
      } catch {
        return json(res, 400, { error: 'not JSON' });
      }
      try {
        const claims = await verifyResultToken(String(body.resultToken ?? ''), account);
        record(account, 'token', { verificationId: claims.sub, checkStatus: claims.check_status });
        return json(res, 200, { checkStatus: claims.check_status, verificationId: claims.sub });
      } catch (err) {
        return json(res, 401, { error: `token refused (${err.code ?? err.message})` });
      }
    }
    if (req.method === 'POST' && url.pathname === '/kyc/webhooks') {
      const raw = await read(req);
      let event;
      try {
        if (!webhook) throw new Error('no WEBHOOK_SECRET');
        event = webhook.verify(raw, req.headers); // signature, timestamp tolerance
      } catch {
        return json(res, 401, { error: 'signature refused' });
      }
      // At least once: the same webhook-id may come again; recording is idempotent.
      const { type, data } = event;
      if (data.customerRef)
        record(data.customerRef, 'webhook', {
          id: req.headers['webhook-id'],
          type,
          verificationId: data.verificationId,
          checkStatus: data.checkStatus ?? null,
          reason: data.reason ?? null,
        });
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'GET' && url.pathname.startsWith('/kyc/accounts/')) {
      return json(res, 200, accounts.get(decodeURIComponent(url.pathname.slice('/kyc/accounts/'.length))) ?? {});
    }
    json(res, 404, { error: 'not found' });
  } catch {
    json(res, 500, { error: 'internal error' });
  }
});

if (import.meta.url === `file://${process.argv[1]}`) {
  server.listen(PORT, HOST, () => console.log(`partner backend on ${ORIGIN} (worker ${WORKER})`));
}
