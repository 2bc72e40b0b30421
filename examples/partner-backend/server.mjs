#!/usr/bin/env node
// @ts-check
// An example partner backend: the partner's own site, which embeds
// <kyc-onboard> and must TRUST the outcome. It never believes the browser,
// and never lets a page-set reference choose an account.
//
// Server first (with KYC_SERVER_KEY, the partner's `kyc_sk_test_…` or `kyc_sk_live_…` server key):
//   - POST /kyc/start: the page asks this server for a client secret; the
//     server starts a verification for the session's account
//     (`POST /v1/verifications`, customerRef = the account; the same one
//     again while it is created or open, so a reload resumes it) and answers
//     the secret and a prefill from the account's profile.
//   - POST /kyc/complete: on `kyc-complete`, the server reads the
//     verification it started (`GET /v1/verifications/{id}?include=person`)
//     and compares the verified name and date of birth with the account's.
//   The API is called through openapi-fetch, typed from the worker's OpenAPI
//   document (kyc-api.d.ts, `npm run openapi`).
// Without a server key (the page sets `customer-ref`; `/?flow=page` shows it too):
//   - POST /kyc/link: the page posts the `verificationId` of its `kyc-link`
//     event under this site's logged-in session; the server ties that
//     verification to the session's account (once: a verification already
//     tied to another account is refused).
//   - POST /kyc/result-token: the page hands over `resultToken` from the
//     `kyc-complete` event; the server verifies it against the worker's JWKS
//     (issuer, audience = this site's origin, ES256, exp, livemode) and
//     checks that its `sub` (the verificationId) is this session's.
//   - POST /kyc/webhooks: signed webhooks (Standard Webhooks), verified with
//     the webhook secret, and matched by `data.verificationId` to the account
//     this server tied it to, never by `data.customerRef` (a page sets that;
//     any script claiming this site's origin can set it to someone else's
//     account). One verification's event only ever changes that
//     verification's record.
// KYC_APP_DIR=<a built front end> (e.g. examples/react-app/dist): this server
// serves that app (its index.html at `/`, with the session cookie, and its
// files) instead of its own page; the app calls the same /kyc/* routes.
// Run: KYC_WORKER=https://kyc.example.com WEBHOOK_SECRET=whsec_… node server.mjs
// Test mode (`KYC_TEST_MODE=1` or `--test-mode`): accepts `livemode: false`
// tokens and webhooks and sandbox keys (`kid` starting `sandbox-`); without
// it both are refused, so a sandbox or test worker can never pass for the
// real one.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import createClient from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';

const WORKER = (process.env.KYC_WORKER ?? 'http://127.0.0.1:8787').replace(/\/$/, '');
const PORT = Number(process.env.PORT ?? 8790);
const HOST = process.env.HOST ?? '127.0.0.1';
const ORIGIN = process.env.PUBLIC_ORIGIN ?? `http://${HOST}:${PORT}`;
const TEST_MODE = process.env.KYC_TEST_MODE === '1' || process.argv.includes('--test-mode');
const jwks = createRemoteJWKSet(new URL(`${WORKER}/.well-known/jwks.json`));
const webhook = process.env.WEBHOOK_SECRET ? new Webhook(process.env.WEBHOOK_SECRET) : undefined;
const VERIFICATION_ID = /^vrf_[0-9A-HJKMNP-TV-Z]{26}$/;
const SERVER_KEY = process.env.KYC_SERVER_KEY?.trim() || undefined;
const APP_DIR = process.env.KYC_APP_DIR ? resolve(process.env.KYC_APP_DIR) : undefined;
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

/** A file of the built front end (KYC_APP_DIR), or undefined. @param {string} path */
function appFile(path) {
  if (!APP_DIR) return undefined;
  const file = resolve(join(APP_DIR, path));
  return file.startsWith(APP_DIR + '/') && extname(file) && existsSync(file) ? file : undefined;
}

/**
 * A webhook body, as the OpenAPI document's `webhooks` describe each event (kyc-api.d.ts).
 * @typedef {import('./kyc-api').components['schemas'][`Verification${'Completed' | 'Expired' | 'Canceled' | 'RequiresInput' | 'Redacted'}Event`]} WebhookEvent
 */

/**
 * The worker's partner server API, typed from its OpenAPI document.
 * @type {import('openapi-fetch').Client<import('./kyc-api').paths>}
 */
export const kyc = createClient({ baseUrl: WORKER, headers: SERVER_KEY ? { Authorization: `Bearer ${SERVER_KEY}` } : {} });

/**
 * What this site knows about each account (its own records): the profile the
 * person gave when signing up, and the verification its server started.
 * @type {Map<string, { profile: { givenName: string, familyName: string, dateOfBirth: string }, started?: { verificationId: string } }>}
 */
const accounts = new Map();
const DEFAULT_PROFILE = { givenName: 'Ada', familyName: 'Lovelace', dateOfBirth: '1990-12-10' };

/** Names compared as a person would: case, accents' composition and spacing do not matter. */
const same = (a, b) =>
  String(a ?? '')
    .normalize('NFC')
    .trim()
    .replace(/\s+/g, ' ')
    .toLowerCase() ===
  String(b ?? '')
    .normalize('NFC')
    .trim()
    .replace(/\s+/g, ' ')
    .toLowerCase();

/**
 * Starts (or resumes) the account's verification: the one it keeps for the
 * account while the worker still gives its client secret (the person can still
 * work on it: created, open or requires_input), a new one otherwise. Every page
 * load asks this, so no load makes an orphan verification. Returns the client
 * secret for the page.
 * @param {string} account
 */
export async function startVerification(account) {
  const known = accounts.get(account);
  if (known?.started) {
    const { data } = await kyc.GET('/v1/verifications/{verificationId}', {
      params: { path: { verificationId: known.started.verificationId } },
    });
    if (data?.clientSecret) return { verificationId: data.verificationId, clientSecret: data.clientSecret };
  }
  const { data, error } = await kyc.POST('/v1/verifications', {
    params: { header: { 'Idempotency-Key': `start-${account}-${randomUUID()}` } },
    body: { customerRef: account, expiresInSeconds: 3600 },
  });
  if (!data) throw new Error(`the worker refused: ${error?.errorCode ?? 'no answer'}`);
  if (!TEST_MODE && data.livemode !== true) throw new Error('not livemode');
  // A replay of a verification that has since ended comes back without a client secret: nothing to start.
  if (!data.clientSecret) throw new Error(`the verification is ${data.status} already`);
  // Only the id is kept: the secret is read again from the worker when the page loads again.
  accounts.set(account, { profile: known?.profile ?? DEFAULT_PROFILE, started: { verificationId: data.verificationId } });
  tie(data.verificationId, account);
  return { verificationId: data.verificationId, clientSecret: data.clientSecret };
}

/**
 * The outcome, from the worker (never from the browser): the verification this
 * server started for the account, with the verified person, compared with
 * the account's profile.
 * @param {string} account
 */
export async function readOutcome(account) {
  const known = accounts.get(account);
  if (!known?.started) return { status: 409, body: { error: 'no verification started for this account' } };
  const { data, error, response } = await kyc.GET('/v1/verifications/{verificationId}', {
    params: { path: { verificationId: known.started.verificationId }, query: { include: 'person' } },
  });
  if (!data) return { status: response.status === 409 ? 409 : 502, body: { error: error?.errorCode ?? 'no answer' } };
  if (!TEST_MODE && data.livemode !== true) return { status: 400, body: { error: 'not livemode' } };
  // Only a reference this server set names the account; a page's (customerRefSource "page") never does.
  if (data.customerRefSource !== 'server' || data.customerRef !== account) {
    return { status: 409, body: { error: 'verification of another account' } };
  }
  const person = data.person;
  const match = {
    name: same(person?.name?.givenName, known.profile.givenName) && same(person?.name?.familyName, known.profile.familyName),
    dateOfBirth: person?.dateOfBirth?.dateOfBirth === known.profile.dateOfBirth,
  };
  // Decide from `status` and `result` (the outcome in the worker's words, whichever vendor); checkStatus is deprecated.
  update(data.verificationId, 'token', {
    verificationId: data.verificationId,
    verified: data.status === 'final' && data.result?.outcome === 'verified',
    outcome: data.result?.outcome,
    checkStatus: data.checkStatus,
  });
  // What a bank keeps: the verified name and date of birth next to the account (never logged here).
  update(data.verificationId, 'person', { name: person?.name, dateOfBirth: person?.dateOfBirth?.dateOfBirth, match });
  return {
    status: 200,
    body: { verificationId: data.verificationId, outcome: data.result?.outcome, checkStatus: data.checkStatus, match },
  };
}

const sessions = new Map(); // this site's session cookie → account
/** Per verification, what this server knows: the account its own server tied it to, and verified outcomes only. */
const verifications = new Map(); // verificationId → { account?, token?, webhook? }

/** Ties a verification to an account, once. False when it is already another account's. */
function tie(verificationId, account) {
  const v = verifications.get(verificationId) ?? {};
  if (v.account !== undefined && v.account !== account) return false;
  verifications.set(verificationId, { ...v, account });
  return true;
}
const update = (verificationId, kind, value) => verifications.set(verificationId, { ...verifications.get(verificationId), [kind]: value });

/** An account's view: its own verifications only, newest outcome first. */
function accountView(account) {
  const mine = [...verifications].filter(([, v]) => v.account === account);
  const latest = (kind) =>
    mine
      .map(([, v]) => v[kind])
      .filter(Boolean)
      .at(-1);
  const view = { verificationIds: mine.map(([id]) => id) };
  if (latest('token')) view.token = latest('token');
  if (latest('webhook')) view.webhook = latest('webhook');
  return view;
}

/**
 * The lines that matter: verify the token, refuse test-mode tokens, then
 * check that its verification is the one this account's session started.
 */
export async function verifyResultToken(token, account) {
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer: WORKER,
    audience: ORIGIN,
    algorithms: ['ES256'],
    typ: 'kyc-result+jwt',
  });
  if (!TEST_MODE && String(protectedHeader.kid).startsWith('sandbox-')) throw new Error('sandbox key');
  if (!TEST_MODE && payload.livemode !== true) throw new Error('not livemode');
  // A reference a page set (customer_ref_source "page") proves nothing and credits nobody: only the tie below
  // does. When present it must at least agree, whoever set it.
  if (payload.customer_ref !== undefined && payload.customer_ref !== account) throw new Error('token is for another account');
  if (!tie(String(payload.sub), account)) throw new Error('verification belongs to another account');
  return payload; // payload.result.outcome is the outcome (verified, failed, inconclusive); payload.sub the verificationId
}

const read = (req) =>
  new Promise((ok) => {
    let b = '';
    req.on('data', (d) => (b += d));
    req.on('end', () => ok(b));
  });
const cookie = (req) => /(?:^|;\s*)sid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
const json = (res, status, body) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
const readJson = async (req) => {
  try {
    return JSON.parse(await read(req));
  } catch {
    return undefined;
  }
};

/** @param {string} account */
const serverFirstPage = (account) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner: open an account</title>
<script type="module" src="${WORKER}/widget.js"></script></head>
<body>
<h1>Open your account</h1>
<p>Account <strong id="account">${account}</strong></p>
<div id="kyc"></div>
<p id="server-says" role="status"></p>
<script type="module">
  const post = (path, body = {}) => fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  // This site's server starts the verification and hands the page its client secret (never in a URL or the markup).
  const start = await post('/kyc/start');
  const { clientSecret, prefill } = await start.json();
  const el = document.createElement('kyc-onboard');
  el.setAttribute('endpoint', '${WORKER}/api');
  el.clientSecret = clientSecret;
  el.prefill = prefill; // what the account says; the person sees and may correct it
  // The page only says "done"; the server reads the outcome and the verified person from the worker.
  el.addEventListener('kyc-complete', async () => {
    const res = await post('/kyc/complete');
    const answer = await res.json();
    document.getElementById('server-says').textContent = res.ok
      ? 'Server verified: ' + (answer.outcome ?? answer.checkStatus) + (answer.match.name && answer.match.dateOfBirth ? ', matches the account' : ', does NOT match the account')
      : 'Server refused: ' + answer.error;
  });
  document.getElementById('kyc').append(el);
</script>
</body></html>`;

/** @param {string} account */
const page = (account) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner: open an account</title>
<script type="module" src="${WORKER}/widget.js"></script></head>
<body>
<h1>Open your account</h1>
<p>Account <strong id="account">${account}</strong></p>
<kyc-onboard endpoint="${WORKER}/api" customer-ref="${account}"></kyc-onboard>
<p id="server-says" role="status"></p>
<script type="module">
  const post = (path, body) => fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  // The server ties the verification to this session's account (webhooks are matched by it).
  document.addEventListener('kyc-link', (e) => post('/kyc/link', { verificationId: e.detail.verificationId }));
  // The page only forwards the token; the decision is the server's.
  document.addEventListener('kyc-complete', async (e) => {
    const res = await post('/kyc/result-token', { resultToken: e.detail.resultToken });
    const answer = await res.json();
    document.getElementById('server-says').textContent = res.ok ? 'Server verified: ' + (answer.outcome ?? answer.checkStatus) : 'Server refused: ' + answer.error;
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
      const account = sessions.get(sid);
      if (!accounts.has(account)) accounts.set(account, { profile: DEFAULT_PROFILE });
      const serverFirst = SERVER_KEY && url.searchParams.get('flow') !== 'page';
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Set-Cookie': `sid=${sid}; Path=/; HttpOnly; SameSite=Lax` });
      if (APP_DIR) return res.end(readFileSync(join(APP_DIR, 'index.html')));
      return res.end(serverFirst ? serverFirstPage(account) : page(account));
    }
    if (req.method === 'POST' && url.pathname === '/kyc/start') {
      const account = sessions.get(cookie(req));
      if (!account) return json(res, 401, { error: 'no session' });
      if (!SERVER_KEY) return json(res, 501, { error: 'no KYC_SERVER_KEY' });
      try {
        const { clientSecret } = await startVerification(account);
        const p = accounts.get(account).profile;
        return json(res, 200, {
          clientSecret,
          prefill: { name: { givenName: p.givenName, familyName: p.familyName }, dateOfBirth: p.dateOfBirth },
        });
      } catch (err) {
        return json(res, 502, { error: err.message });
      }
    }
    if (req.method === 'POST' && url.pathname === '/kyc/complete') {
      const account = sessions.get(cookie(req));
      if (!account) return json(res, 401, { error: 'no session' });
      const { status, body } = await readOutcome(account);
      return json(res, status, body);
    }
    if (req.method === 'POST' && url.pathname === '/kyc/link') {
      const account = sessions.get(cookie(req));
      if (!account) return json(res, 401, { error: 'no session' });
      const body = await readJson(req);
      const vid = String(body?.verificationId ?? '');
      if (!VERIFICATION_ID.test(vid)) return json(res, 400, { error: 'not a verificationId' });
      if (!tie(vid, account)) return json(res, 409, { error: 'verification belongs to another account' });
      return json(res, 200, { verificationId: vid });
    }
    if (req.method === 'POST' && url.pathname === '/kyc/result-token') {
      const account = sessions.get(cookie(req));
      if (!account) return json(res, 401, { error: 'no session' });
      const body = await readJson(req);
      if (!body) return json(res, 400, { error: 'not JSON' });
      try {
        const claims = await verifyResultToken(String(body.resultToken ?? ''), account);
        const outcome = /** @type {{ outcome?: string } | undefined} */ (claims.result)?.outcome;
        update(claims.sub, 'token', {
          verificationId: claims.sub,
          verified: outcome === 'verified',
          outcome,
          checkStatus: claims.check_status,
        });
        return json(res, 200, { outcome, checkStatus: claims.check_status, verificationId: claims.sub });
      } catch (err) {
        return json(res, 401, { error: `token refused (${err.code ?? err.message})` });
      }
    }
    if (req.method === 'POST' && url.pathname === '/kyc/webhooks') {
      const raw = await read(req);
      /** @type {WebhookEvent} */
      let event;
      try {
        if (!webhook) throw new Error('no WEBHOOK_SECRET');
        // The signature and the timestamp's tolerance; the body's shape is the OpenAPI document's `webhooks`.
        event = /** @type {WebhookEvent} */ (webhook.verify(raw, /** @type {Record<string, string>} */ (req.headers)));
      } catch {
        return json(res, 401, { error: 'signature refused' });
      }
      const { type, data } = event;
      // A sandbox or test worker's event: acknowledged (any other answer is retried for days), never recorded.
      if (!TEST_MODE && data?.livemode !== true) return json(res, 200, { ignored: 'test-mode event (livemode is not true)' });
      if (!VERIFICATION_ID.test(String(data?.verificationId))) return json(res, 400, { error: 'no verificationId' });
      // At least once: the same webhook-id may come again; recording is idempotent.
      // Matched by verificationId: data.customerRef (set by a page) never picks the account.
      update(data.verificationId, 'webhook', {
        id: req.headers['webhook-id'],
        type,
        verificationId: data.verificationId,
        outcome: 'result' in data ? data.result?.outcome : null,
        checkStatus: 'checkStatus' in data ? data.checkStatus : null,
        reason: 'reason' in data ? data.reason : null,
      });
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'GET' && url.pathname.startsWith('/kyc/accounts/')) {
      return json(res, 200, accountView(decodeURIComponent(url.pathname.slice('/kyc/accounts/'.length))));
    }
    if (req.method === 'GET' && url.pathname.startsWith('/kyc/verifications/')) {
      return json(res, 200, verifications.get(decodeURIComponent(url.pathname.slice('/kyc/verifications/'.length))) ?? {});
    }
    const file = req.method === 'GET' ? appFile(url.pathname) : undefined;
    if (file) {
      res.writeHead(200, { 'Content-Type': TYPES[/** @type {keyof typeof TYPES} */ (extname(file))] ?? 'application/octet-stream' });
      return res.end(readFileSync(file));
    }
    json(res, 404, { error: 'not found' });
  } catch {
    json(res, 500, { error: 'internal error' });
  }
});

if (import.meta.url === `file://${process.argv[1]}`) {
  server.listen(PORT, HOST, () => console.log(`partner backend on ${ORIGIN} (worker ${WORKER})${TEST_MODE ? ', test mode' : ''}`));
}
