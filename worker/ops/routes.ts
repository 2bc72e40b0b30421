/**
 * /ops, the operator console (docs/operations.md "Operator console"):
 *   GET  /ops                                   the page (partner, range 24h | 7d | 30d)
 *   GET  /ops/api/funnel?partner=&from=&to=     the funnel per partner (ISO dates; default the last 7 days)
 *   GET  /ops/api/vendors?partner=&from=&to=    per vendor: links, finals, failovers and their causes, calls (health), webhook deliveries
 *   GET  /ops/api/webhooks?state=dead|failed|undelivered|all&partner=
 *   POST /ops/api/webhooks/:verificationId/redeliver   (JSON; the CLI)
 *   POST /ops/redeliver                         (the page's "Redeliver" form)
 * Access: access.ts. Every answer: no-store, a strict CSP (no script at all),
 * no referrer, not indexed.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { Hono } from 'hono/tiny';
import { bodyLimit } from 'hono/body-limit';
import { bindingIfAny } from '../lib/env';
import type { AppEnv } from '../app-env';
import { ApiError, validationError } from '../lib/errors';
import { redeliverWebhook } from '../verifications/webhook-redeliver';
import { VERIFICATION_ID } from '../verifications/verification';
import { countFailedAttempt, refuseLimitedClient } from '../lib/failed-attempts';
import { misconfigured } from '../middleware/config-guard';
import { checkAccess } from './access';
import { OPS_CSS_ASSET, opsPage, RANGES, type RangeName } from './page';
import { funnel, summary, type VendorsAnswer } from './report';
import { misconfiguration } from '../middleware/config-guard';
import { DAY_MS, readDeliveries, readPartners, type DeliveryFilter } from './store';
import { systemClock } from '../lib/clock';
import { bindingWarnings } from './binding-warnings';

const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const PARTNER = /^[A-Za-z0-9_.:-]{1,64}$/;
const ISO = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;
const MAX_RANGE_MS = 400 * DAY_MS;

function database(c: Context<AppEnv>) {
  const db = bindingIfAny(c.env, 'DB');
  if (!db) throw new ApiError(500, 'MISCONFIGURED', 'The operator console needs the D1 database (binding DB).');
  return db;
}

/** `partner=`: a partner id, or absent for all. */
function partnerParam(c: Context<AppEnv>): string | undefined {
  const p = c.req.query('partner')?.trim();
  if (!p) return undefined;
  if (!PARTNER.test(p)) throw validationError([{ issue: 'must be a partner id', issueLocation: 'partner' }]);
  return p;
}

/** An ISO date (`2026-11-01`: the day's start; as `to`, the day's end) or date-time. */
function instant(value: string, field: 'from' | 'to'): number {
  const t = ISO.test(value) ? Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value) : NaN;
  if (!Number.isFinite(t)) throw validationError([{ issue: 'must be an ISO 8601 date or date-time', issueLocation: field }]);
  return value.length === 10 && field === 'to' ? t + DAY_MS : t;
}

export function rangeParams(c: Context<AppEnv>, now = systemClock()): { from: number; to: number } {
  const fromQ = c.req.query('from')?.trim();
  const toQ = c.req.query('to')?.trim();
  const to = toQ ? instant(toQ, 'to') : now;
  const from = fromQ ? instant(fromQ, 'from') : to - 7 * DAY_MS;
  if (from >= to) throw validationError([{ issue: 'must be before to', issueLocation: 'from' }]);
  if (to - from > MAX_RANGE_MS) throw validationError([{ issue: 'the range is at most 400 days', issueLocation: 'from' }]);
  return { from, to };
}

function stateParam(c: Context<AppEnv>): DeliveryFilter {
  const s = c.req.query('state') ?? 'failed';
  if (s !== 'dead' && s !== 'failed' && s !== 'undelivered' && s !== 'all')
    throw validationError([{ issue: 'must be dead, failed, undelivered or all', issueLocation: 'state' }]);
  return s;
}

const rangeName = (v: string | undefined): RangeName => (v && v in RANGES ? (v as RangeName) : '7d');

export const ops = new Hono<AppEnv>();

// Mounted at '/': every middleware names /ops, or it would run for the whole worker.
const guard: MiddlewareHandler<AppEnv> = async (c, next) => {
  // A client that kept failing to sign in is refused before its token or assertion is checked.
  const limited = refuseLimitedClient('ops', c.req.raw.headers);
  if (limited) throw limited;
  const access = await checkAccess(c.env, c.var.ports, c.req.url, c.req.raw.headers);
  if (access.kind === 'misconfigured') throw misconfigured(access.issues);
  if (access.kind === 'not-found') throw new ApiError(404, 'NOT_FOUND', 'There is nothing here.');
  if (access.kind === 'unauthorized') {
    await countFailedAttempt(c.env, 'ops', c.req.raw.headers);
    throw new ApiError(401, 'UNAUTHENTICATED', 'Sign in through Cloudflare Access, or send Authorization: Bearer <OPS_TOKEN>.', [], {
      ...(c.var.config.secrets.opsToken ? { 'WWW-Authenticate': 'Bearer realm="ops"' } : {}),
      'Cache-Control': 'no-store',
    });
  }
  await next();
  c.header('Cache-Control', 'no-store');
  c.header('Content-Security-Policy', CSP);
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Robots-Tag', 'noindex');
};
ops.use('/ops/*', guard); // '/ops/*' matches /ops itself too

// A POST from a page must come from the console itself: with Access, the browser sends its
// session cookie along with any site's form (CSRF). Browsers say where a request comes from in
// Sec-Fetch-Site; without it (old browsers), the Origin must be this one. The CLI sends neither.
ops.use('/ops/*', async (c, next) => {
  if (c.req.method === 'POST') {
    const site = c.req.header('Sec-Fetch-Site');
    const origin = c.req.header('Origin');
    const ok = site ? site === 'same-origin' || site === 'none' : !origin || origin === new URL(c.req.url).origin;
    if (!ok) throw new ApiError(403, 'ORIGIN_NOT_ALLOWED', 'Only the console itself may do this.');
  }
  await next();
});

// The stylesheet is a static asset (worker/ops/ops.css, copied by the build), answered here behind the console's checks.
ops.get(OPS_CSS_ASSET, async (c) => {
  const res = await bindingIfAny(c.env, 'ASSETS')?.fetch(new URL(OPS_CSS_ASSET, c.req.url).href);
  if (!res?.ok) throw new ApiError(404, 'NOT_FOUND', 'The console stylesheet is not built: run `npm run build`.');
  return c.body(await res.text(), 200, { 'Content-Type': 'text/css; charset=utf-8' });
});

ops.get('/ops/api/funnel', async (c) => {
  const partner = partnerParam(c);
  const range = rangeParams(c);
  return c.json(await funnel(database(c), { ...range, ...(partner ? { partner } : {}) }));
});

// What the page's "Per vendor" shows (report.ts `summary`), for `npm run ops -- vendors`.
ops.get('/ops/api/vendors', async (c) => {
  const partner = partnerParam(c);
  const range = rangeParams(c);
  const s = await summary(database(c), { ...range, ...(partner ? { partner } : {}) });
  return c.json({
    from: new Date(range.from).toISOString(),
    to: new Date(range.to).toISOString(),
    vendors: s.vendors,
  } satisfies VendorsAnswer);
});

ops.get('/ops/api/webhooks', async (c) => {
  const state = stateParam(c);
  const partner = partnerParam(c);
  const data = await readDeliveries(database(c), state, partner);
  return c.json({
    data: data.map((d) => ({
      verificationId: d.verificationId,
      partnerId: d.partnerId,
      type: d.type,
      state: d.state,
      attempts: d.attempts,
      lastResponseStatus: d.lastResponseStatus,
    })),
  });
});

async function redeliver(c: Context<AppEnv>, verificationId: string) {
  if (!VERIFICATION_ID.test(verificationId))
    throw validationError([{ issue: 'must be a verification id', issueLocation: 'verificationId' }]);
  const r = await redeliverWebhook(c.env, c.var.ports.verifications, verificationId);
  if (r.kind === 'not-found')
    throw new ApiError(404, 'NOT_FOUND', 'No such verification (it may have been forgotten: they are kept 7 days after they end).');
  if (r.kind === 'not-ended')
    throw new ApiError(409, 'VERIFICATION_OPEN', 'This verification has not ended: there is no event to send yet.');
  if (r.kind === 'unavailable') throw new ApiError(500, 'MISCONFIGURED', 'The webhook queue (binding WEBHOOK_QUEUE) is missing.');
  return r;
}

ops.post('/ops/api/webhooks/:verificationId/redeliver', async (c) => {
  const r = await redeliver(c, c.req.param('verificationId'));
  return c.json({ verificationId: r.verificationId, webhookId: r.webhookId, type: r.type, state: 'queued' }, 202);
});

ops.post('/ops/redeliver', bodyLimit({ maxSize: 1024 }), async (c) => {
  const form = await c.req.parseBody();
  const id = typeof form.verificationId === 'string' ? form.verificationId : '';
  const back = new URLSearchParams();
  const partner = c.req.query('partner');
  if (partner && PARTNER.test(partner)) back.set('partner', partner);
  back.set('range', rangeName(c.req.query('range')));
  try {
    const r = await redeliver(c, id);
    back.set('redelivered', r.verificationId);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    back.set('redeliver_failed', err.errorCode);
  }
  return c.redirect(`/ops?${back.toString()}`, 303);
});

ops.get('/ops', async (c) => {
  const db = database(c);
  const range = rangeName(c.req.query('range'));
  const partner = partnerParam(c);
  const now = c.var.clock();
  const from = now - RANGES[range] * DAY_MS;
  const [partners, s, failed] = await Promise.all([
    readPartners(db, now - 30 * DAY_MS),
    summary(db, { from, to: now, ...(partner ? { partner } : {}) }),
    readDeliveries(db, 'undelivered', partner, 50),
  ]);
  const misconfigured = [...new Set(misconfiguration(c.env, c.var.ports, c.var.config, c.req.url).map((i) => i.issueLocation))];
  const warnings = bindingWarnings(c.env).map((i) => `${i.issueLocation} ${i.issue}`);
  const redelivered = c.req.query('redelivered');
  const refused = c.req.query('redeliver_failed');
  const notice =
    redelivered && VERIFICATION_ID.test(redelivered)
      ? { ok: true, text: `Queued again: the webhook of ${redelivered}, with the same webhook-id.` }
      : refused && /^[A-Z_]{1,40}$/.test(refused)
        ? { ok: false, text: `Not redelivered (${refused}).` }
        : undefined;
  return c.html(
    opsPage({
      partners: partner && !partners.includes(partner) ? [...partners, partner] : partners,
      ...(partner ? { partner } : {}),
      range,
      summary: s,
      failed,
      ...(notice ? { notice } : {}),
      ...(misconfigured.length ? { misconfigured } : {}),
      ...(warnings.length ? { warnings } : {}),
    }),
  );
});

ops.all('/ops/*', () => {
  throw new ApiError(404, 'NOT_FOUND', 'There is nothing here.');
});
