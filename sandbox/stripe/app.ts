/**
 * The Stripe double: Stripe Identity's VerificationSession API under
 * `/sandbox/stripe` (so STRIPE_API_BASE = `<origin>/sandbox/stripe`), as its
 * public reference describes it: form-encoded bodies, `Authorization: Bearer
 * sk_test_…` (a live key is refused: this is test mode), JSON answers,
 * errors as `{error: {type, code?, message, param?}}`. Each key sees only
 * the sessions it made. A hosted page (Verify, Fail with a chosen code,
 * Abandon) changes a session as Stripe's flow would, sends the person to
 * the session's `return_url`, and signs an `identity.verification_session.*`
 * event as Stripe signs them for whoever mounted the double
 * (`stripeWebhook`). docs/sandbox.md documents it.
 */
import { Hono, type Context } from 'hono';
import { base64url } from '../../rules/base64url';
import { isHttpUrl } from '../../rules/http-url';
import { signStripeEvent } from '../../rules/stripe-signature';
import { httpOrigin, type SandboxAppEnv, type SandboxEnv } from '../env';
import { clock, storeFor, type StripeSessionRecord } from '../store';
import { stripeDonePage, stripeFlowPage, stripeUsedPage } from './page';

/** The signing secret of the double's events (the local stack's STRIPE_WEBHOOK_SECRET while the double is the vendor). */
export const STRIPE_SANDBOX_WEBHOOK_SECRET = 'whsec_kyc_onboard_sandbox_stripe_double';
/** The key the local stack uses with the double unless STRIPE_SECRET_KEY is set. */
export const STRIPE_SANDBOX_KEY = 'sk_test_kyconboardsandbox';
/** Every `last_error.code` of Stripe's reference: the hosted page offers each. */
export const LAST_ERROR_CODES = [
  'abandoned',
  'consent_declined',
  'country_not_supported',
  'device_not_supported',
  'document_expired',
  'document_type_not_supported',
  'document_unverified_other',
  'email_unverified_other',
  'email_verification_declined',
  'id_number_insufficient_document_data',
  'id_number_mismatch',
  'id_number_unverified_other',
  'phone_unverified_other',
  'phone_verification_declined',
  'selfie_document_missing_photo',
  'selfie_face_mismatch',
  'selfie_manipulated',
  'selfie_unverified_other',
  'under_supported_age',
];
/** How long the double keeps a session. */
const SESSION_TTL_MS = 7 * 86_400_000;

type C = Context<SandboxAppEnv>;
type StripeStatus = 400 | 401 | 404;

class StripeError extends Error {
  constructor(
    readonly status: StripeStatus,
    readonly type: string,
    readonly text: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(text);
  }
}

// `app.request(path)` without an env leaves c.env undefined.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
const env = (c: C): SandboxEnv => c.env ?? {};

const random = (bytes: number) => base64url(crypto.getRandomValues(new Uint8Array(bytes))).replace(/[-_]/g, 'x');

async function sha256(text: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...d].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The caller's account: the hash of a test key. */
async function account(c: C): Promise<string> {
  const auth = c.req.header('Authorization') ?? '';
  const key = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
  if (!key) throw new StripeError(401, 'invalid_request_error', 'You did not provide an API key.');
  if (/^(sk|rk)_live_/.test(key))
    throw new StripeError(401, 'invalid_request_error', 'This is a test-mode double: a live mode key is not accepted here.');
  if (!/^(sk|rk)_test_[A-Za-z0-9]{8,}$/.test(key)) throw new StripeError(401, 'invalid_request_error', 'Invalid API Key provided.');
  return sha256(key);
}

const KNOWN =
  /^(type|client_reference_id|return_url|verification_flow|related_customer|metadata\[[^\]]+\]|options\[.+\]|provided_details\[.+\])$/;

async function form(c: C): Promise<URLSearchParams> {
  const type = c.req.header('Content-Type') ?? '';
  const text = await c.req.text();
  if (text && !type.startsWith('application/x-www-form-urlencoded'))
    throw new StripeError(400, 'invalid_request_error', 'Request bodies are form-encoded (application/x-www-form-urlencoded).');
  return new URLSearchParams(text);
}

function view(c: C, s: StripeSessionRecord) {
  const open = s.status === 'requires_input' && !s.redacted;
  return {
    id: s.id,
    object: 'identity.verification_session',
    client_reference_id: s.clientReferenceId,
    client_secret: open ? `${s.id}_secret_sandbox` : null,
    created: Math.floor(s.createdAt / 1000),
    last_error: s.lastError,
    last_verification_report: null,
    livemode: false,
    metadata: s.metadata,
    options: {},
    redaction: s.redacted ? { status: 'redacted' } : null,
    status: s.status,
    type: s.type,
    url: open ? `${new URL(c.req.url).origin}/sandbox/stripe/flow/${s.token}` : null,
    verified_outputs: null,
  };
}

async function ownSession(c: C): Promise<StripeSessionRecord> {
  const owner = await account(c);
  const s = await storeFor(env(c)).getStripeSession(c.req.param('id') ?? '');
  if (!s || s.owner !== owner)
    throw new StripeError(404, 'invalid_request_error', 'No such verification session.', 'resource_missing', 'id');
  return s;
}

async function allowedReturn(c: C, url: string): Promise<boolean> {
  const check = c.get('sandboxHttpCaller');
  if (!check) return true; // the mounting worker's own in-process call
  const origin = httpOrigin(url);
  if (!origin) return false;
  try {
    return await check(origin, c.req.url);
  } catch {
    return false;
  }
}

/** The event Stripe would send about `s`, signed at the double's clock. */
export async function signedStripeEvent(type: string, session: object, secret = STRIPE_SANDBOX_WEBHOOK_SECRET, now = clock.now()) {
  const body = JSON.stringify({
    id: `evt_${random(18)}`,
    object: 'event',
    api_version: null,
    created: Math.floor(now / 1000),
    livemode: false,
    type,
    data: { object: session },
  });
  return { body, signature: await signStripeEvent(secret, body, now) };
}

async function emit(c: C, type: string, s: StripeSessionRecord): Promise<void> {
  const sink = c.get('stripeWebhook');
  if (!sink) return;
  const event = await signedStripeEvent(`identity.verification_session.${type}`, view(c, s));
  try {
    await sink({ ...event, clientReferenceId: s.clientReferenceId, origin: new URL(c.req.url).origin });
  } catch {
    // A receiver that fails is Stripe's retry problem, not the person's.
  }
}

/** How an attempt ends on the hosted page (also what `npm run sandbox -- complete` asks for). */
export type StripeChoice = { choice: 'verify' } | { choice: 'fail'; code: string } | { choice: 'abandon' };

/**
 * What `npm run sandbox -- complete --outcome <ours> [--code <code>]` stands
 * for on this double: the person's choice on the hosted page. Failed and
 * requires_input are a `last_error.code` (given, or a typical one: a declined
 * consent ends the check, an unverified document may be tried again); Stripe
 * has no inconclusive (undefined).
 */
export function choiceFor(outcome: string, code?: string): StripeChoice | undefined {
  if (code !== undefined && !LAST_ERROR_CODES.includes(code)) return undefined;
  switch (outcome) {
    case 'verified':
      return code === undefined ? { choice: 'verify' } : undefined;
    case 'abandoned':
      return code === undefined ? { choice: 'abandon' } : undefined;
    case 'failed':
      return { choice: 'fail', code: code ?? 'consent_declined' };
    case 'requires_input':
      return { choice: 'fail', code: code ?? 'document_unverified_other' };
    default:
      return undefined;
  }
}

/** `s` after the person's choice; the page's token changes (a used url does not work twice). */
export function settled(s: StripeSessionRecord, how: StripeChoice): StripeSessionRecord {
  const next = { ...s, token: random(24) };
  if (how.choice === 'verify') return { ...next, status: 'verified', lastError: null };
  const code = how.choice === 'abandon' ? 'abandoned' : how.code;
  return { ...next, status: 'requires_input', lastError: { code, reason: `The sandbox ended this attempt with ${code}.` } };
}

export const stripeDouble = new Hono<SandboxAppEnv>();

stripeDouble.onError((err, c) => {
  if (err instanceof StripeError) {
    return c.json(
      { error: { type: err.type, message: err.text, ...(err.code ? { code: err.code } : {}), ...(err.param ? { param: err.param } : {}) } },
      err.status,
    );
  }
  return c.json({ error: { type: 'api_error', message: 'The Stripe double failed to process the request.' } }, 500);
});

stripeDouble.post('/v1/identity/verification_sessions', async (c) => {
  const owner = await account(c);
  const params = await form(c);
  for (const key of params.keys()) {
    if (!KNOWN.test(key)) throw new StripeError(400, 'invalid_request_error', 'Received unknown parameter.', 'parameter_unknown', key);
  }
  const type = params.get('type') ?? undefined;
  if (!params.get('verification_flow') && type !== 'document' && type !== 'id_number') {
    throw new StripeError(400, 'invalid_request_error', 'Invalid type: must be document or id_number.', 'parameter_invalid_string', 'type');
  }
  const returnUrl = params.get('return_url');
  if (returnUrl !== null && (!isHttpUrl(returnUrl) || !(await allowedReturn(c, returnUrl)))) {
    throw new StripeError(400, 'invalid_request_error', 'Not a valid URL.', 'url_invalid', 'return_url');
  }
  const metadata: Record<string, string> = {};
  for (const [k, v] of params) {
    const m = /^metadata\[([^\]]+)\]$/.exec(k);
    if (!m) continue;
    if (Object.keys(metadata).length >= 50 || m[1]!.length > 40 || v.length > 500)
      throw new StripeError(400, 'invalid_request_error', 'Invalid metadata.', 'parameter_invalid_string', 'metadata');
    metadata[m[1]!] = v;
  }
  const ref = params.get('client_reference_id');
  if (ref !== null && ref.length > 5000)
    throw new StripeError(400, 'invalid_request_error', 'Too long.', 'parameter_invalid_string', 'client_reference_id');
  const now = clock.now();
  const s: StripeSessionRecord = {
    id: `vs_${random(18)}`,
    owner,
    status: 'requires_input',
    lastError: null,
    type: type ?? 'document',
    clientReferenceId: ref,
    metadata,
    returnUrl,
    redacted: false,
    token: random(24),
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
  };
  await storeFor(env(c)).putStripeSession(s);
  await emit(c, 'created', s);
  return c.json(view(c, s));
});

stripeDouble.get('/v1/identity/verification_sessions', async (c) => {
  await account(c);
  return c.json({ object: 'list', data: [], has_more: false, url: '/v1/identity/verification_sessions' });
});

stripeDouble.get('/v1/identity/verification_sessions/:id', async (c) => c.json(view(c, await ownSession(c))));

stripeDouble.post('/v1/identity/verification_sessions/:id/cancel', async (c) => {
  const s = await ownSession(c);
  if (s.status !== 'requires_input') {
    throw new StripeError(400, 'invalid_request_error', `A session in status ${s.status} cannot be canceled.`, 'session_invalid_state');
  }
  const canceled: StripeSessionRecord = { ...s, status: 'canceled' };
  await storeFor(env(c)).putStripeSession(canceled);
  await emit(c, 'canceled', canceled);
  return c.json(view(c, canceled));
});

stripeDouble.post('/v1/identity/verification_sessions/:id/redact', async (c) => {
  const s = await ownSession(c);
  if (s.status === 'processing') {
    throw new StripeError(400, 'invalid_request_error', 'A session being processed cannot be redacted.', 'session_invalid_state');
  }
  if (s.redacted) return c.json(view(c, s));
  // As Stripe's reference says: a session that still takes input is canceled by its redaction; the metadata is erased.
  const status = s.status === 'requires_input' ? 'canceled' : s.status;
  const redacted: StripeSessionRecord = { ...s, status, redacted: true, metadata: {}, clientReferenceId: s.clientReferenceId };
  await storeFor(env(c)).putStripeSession(redacted);
  await emit(c, 'redacted', redacted);
  return c.json(view(c, redacted));
});

function pageHeaders(c: C, s?: StripeSessionRecord) {
  const target = s?.returnUrl ? httpOrigin(s.returnUrl) : undefined;
  c.header(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'self'; form-action 'self'${target ? ` ${target}` : ''}; frame-ancestors 'none'; base-uri 'none'`,
  );
  c.header('Referrer-Policy', 'no-referrer');
}

stripeDouble.get('/flow/:token', async (c) => {
  const s = await storeFor(env(c)).getStripeSessionByToken(c.req.param('token'));
  pageHeaders(c, s ?? undefined);
  if (!s || s.status !== 'requires_input' || s.redacted) return c.html(stripeUsedPage(), 404);
  return c.html(stripeFlowPage({ action: `/sandbox/stripe/flow/${encodeURIComponent(s.token)}`, codes: LAST_ERROR_CODES }));
});

stripeDouble.post('/flow/:token', async (c) => {
  const store = storeFor(env(c));
  const s = await store.getStripeSessionByToken(c.req.param('token'));
  pageHeaders(c, s ?? undefined);
  if (!s || s.status !== 'requires_input' || s.redacted) return c.html(stripeUsedPage(), 404);
  let choice: StripeChoice | undefined;
  try {
    const body = await c.req.parseBody();
    const code = typeof body.code === 'string' ? body.code : '';
    if (body.choice === 'verify') choice = { choice: 'verify' };
    else if (body.choice === 'abandon') choice = { choice: 'abandon' };
    else if (body.choice === 'fail' && LAST_ERROR_CODES.includes(code)) choice = { choice: 'fail', code };
  } catch {
    choice = undefined;
  }
  if (!choice) return c.html(stripeUsedPage(), 400);
  const next = settled(s, choice);
  await store.putStripeSession(next);
  await emit(c, next.status === 'verified' ? 'verified' : 'requires_input', next);
  return next.returnUrl ? c.redirect(next.returnUrl, 303) : c.html(stripeDonePage());
});
