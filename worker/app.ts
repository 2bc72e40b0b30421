/**
 * The worker's Hono app, assembled: middleware in one order (configuration → request id → log
 * → secure headers → no-store → rate limit → partner → CORS → origin guard →
 * body limit → configuration guard), the routes every deployment has, and one
 * error envelope. `createApp` takes what differs per deployment: the local
 * stack (entry/local-app.ts) plugs in the sandbox and the demo's pieces,
 * production (entry/production.ts) nothing. No module here imports the
 * sandbox or the demo.
 */
import type { ErrorHandler, NotFoundHandler } from 'hono';
// hono/tiny: the same Hono with its small PatternRouter (about 2.4 KB gzip less than the
// default RegExpRouter + TrieRouter; a few dozen routes do not need their speed). Every
// module of the worker that makes a Hono app imports it from here, or the default router
// comes back into the bundle.
import { Hono } from 'hono/tiny';
import { createMiddleware } from 'hono/factory';
import { routePath } from 'hono/route';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { ulid } from './lib/ids';
import type { AppEnv } from './app-env';
import { withConfig } from './middleware/with-config';
import { configGuard } from './middleware/config-guard';
import { securityHeaders as securityHeadersFor } from './middleware/security-headers';
import { ApiError, errorName, errorResponse } from './lib/errors';
import { schemaError } from './lib/d1-schema';
import { enforceClient } from './lib/limits';
import { RegistryError, SealingError } from './partners/registry';
import { resolvePartner } from './partners/resolve';
import { onboardingLink } from './browser-api/onboarding-link';
import { result } from './browser-api/result';
import { ruok } from './browser-api/ruok';
import { withdrawLink } from './browser-api/withdraw-link';
import { settings } from './browser-api/settings';
import { jwks } from './verifications/jwks';
import { handoff } from './handoff/routes';
import { home } from './assets/home';
import { PINNED_WIDGET_PATH, pinnedWidget } from './assets/pinned-widget';
import { serverApi } from './server-api/app';
import { BEACON_PATH, beacon } from './ops/beacon';
import { ops } from './ops/routes';
import { vendorWebhooks } from './vendors/webhooks';
import { log } from './lib/log';
import type { Clock } from './lib/clock';
import type { PortOverrides } from './ports';

export const MAX_BODY_BYTES = 64 * 1024;

const requestLog = createMiddleware<AppEnv>(async (c, next) => {
  const requestId = ulid();
  c.set('requestId', requestId);
  const started = performance.now();
  await next();
  c.res.headers.set('X-Request-Id', requestId);
  // The widget counts a link's lifetime on the worker's clock (its browser's may be wrong).
  if (!c.res.headers.has('Date')) c.res.headers.set('Date', new Date().toUTCString());
  // One structured line per request. Never a body, a query string or a header
  // value: those may carry personal data or credentials.
  const line = {
    requestId,
    method: c.req.method,
    route: routePath(c),
    status: c.res.status,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    vendorStatus: c.get('vendorStatus'),
    partner: c.get('partner')?.id,
    // What a misconfigured deployment lacks (setting names, never values).
    missing: c.get('missing'),
  };
  if (c.res.status >= 500) log.error('request', line);
  else log.info('request', line);
});

// Second, so every answer carries them: an error thrown by any later
// middleware (a 403 from the origin guard, a 413, a 429) becomes its answer
// inside the chain, and these headers are set on it on the way out.
// Two answers are read by partner pages cross-origin without CORS and need
// `Cross-Origin-Resource-Policy: cross-origin` (relaxed on those routes only):
// the versioned widget script, and the beacon's 204 (`sendBeacon` with a
// text body is a no-cors request; a same-origin policy on its answer is a
// console error on every partner page).
const strictHeaders = securityHeadersFor();
const scriptHeaders = securityHeadersFor('cross-origin');
const securityHeaders = createMiddleware<AppEnv>((c, next) =>
  (PINNED_WIDGET_PATH.test(c.req.path) || BEACON_PATH.test(c.req.path) ? scriptHeaders : strictHeaders)(c, next),
);

// The partner the request works for, from its exact Origin (partners/resolve.ts).
// A registry partner whose secrets cannot be opened stops here: no call is
// ever made with missing or wrong credentials.
const partnerOfRequest = createMiddleware<AppEnv>(async (c, next) => {
  let partner;
  try {
    partner = await resolvePartner(c.env, c.var.ports, c.req.url, c.req.header('Origin'));
  } catch (err) {
    if (err instanceof SealingError || err instanceof RegistryError) {
      log.error('partner_unavailable', { requestId: c.get('requestId'), error: err.name, detail: err.message });
      throw new ApiError(500, 'MISCONFIGURED', 'The service is misconfigured. The operator has to fix its settings.');
    }
    throw err;
  }
  if (partner) c.set('partner', partner);
  await next();
});

// CORS for partner origins. A page of no partner may read one answer: the
// 403 ORIGIN_NOT_ALLOWED refusal of a state-changing request (the guard below
// refuses every such request before anything else runs), so the widget can
// tell a misconfiguration from a network failure; its preflight is granted so
// the browser sends the request that gets refused. Nothing else is readable
// (a GET from such a page carries no grant).
const corsForPartners = createMiddleware<AppEnv>(
  cors({
    origin: (origin, c) => (c.get('partner') || (c.req.method !== 'GET' && c.req.method !== 'HEAD') ? origin : null),
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'Idempotency-Key'],
    exposeHeaders: ['X-Request-Id', 'Retry-After', 'Idempotent-Replayed', 'Date'],
    maxAge: 600,
  }),
);

// State-changing requests must come from a partner's page (CORS alone only
// hides the answer; it does not stop the request).
const originGuard = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && !c.get('partner')) {
    throw new ApiError(403, 'ORIGIN_NOT_ALLOWED', 'This site is not allowed to use this service.');
  }
  await next();
});

export const apiBodyLimit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_BODY_BYTES / 1024} KB.`);
  },
});

// One budget per client, whichever partner's origin it claims (a client that
// claims several partners' origins gets no more), counted before anything
// else runs: refusals (403 for an unknown origin) and preflights count too,
// and an unknown origin's registry lookup is paid for out of it. /handoff/*
// spends the same budget (handoff/routes.ts). The 429 is readable by the page
// that asked (its body says nothing but "too many"), so the widget can say so.
const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  try {
    await enforceClient(c.env, c.req.raw.headers);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const res = errorResponse(c, err);
    const origin = c.req.header('Origin');
    if (origin) {
      res.headers.set('Access-Control-Allow-Origin', origin);
      res.headers.set('Access-Control-Expose-Headers', 'X-Request-Id, Retry-After');
      res.headers.append('Vary', 'Origin');
    }
    return res;
  }
  await next();
});

// Every /api answer, errors included: the link answer carries a session and a
// code, the result answer a token; no cache or proxy may keep them.
const noStore = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  c.res.headers.set('Cache-Control', 'no-store');
});

const notFound: NotFoundHandler<AppEnv> = (c) => errorResponse(c, new ApiError(404, 'NOT_FOUND', 'There is nothing here.'));

const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  if (err instanceof HTTPException && err.status < 500) {
    return errorResponse(c, new ApiError(err.status, 'VALIDATION_FAILED', 'The request could not be read.'));
  }
  const unmigrated = schemaError(err, c.get('requestId'));
  if (unmigrated) return errorResponse(c, unmigrated);
  // The error's name only: its message could quote input.
  log.error('unhandled_error', { requestId: c.get('requestId'), error: errorName(err) });
  return errorResponse(c, new ApiError(500, 'INTERNAL_ERROR', 'Something went wrong on our side. Please try again.'));
};
/** What a deployment adds to the product (entry/local-app.ts: the sandbox and the demo). */
export interface AppParts {
  /**
   * What it plugs in over the stores of its bindings (ports.ts; every route reads `c.var.ports`):
   * the local stack's sandbox, partner source, webhook transport and secrets; a node test's twins.
   * The entry gives its Durable Objects and queue consumers the same (`portsFor`).
   */
  ports?: PortOverrides;
  /** Mounts routes after the product's; the middleware above runs before them. */
  mount?: (app: Hono<AppEnv>) => void;
  /** The clock every route reads (`c.var.clock`); the runtime's by default. */
  clock?: Clock;
}

/** The worker's app: the middleware in its order, the routes, one error envelope. */
export function createApp(parts: AppParts = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // First: every middleware and route after it reads `c.var.config` (config.ts), never the env's strings, and `c.var.ports`.
  app.use('*', withConfig(parts.clock, parts.ports));
  app.use('*', requestLog);
  // Second, so every answer carries them: an error thrown by any later
  // middleware (a 403 from the origin guard, a 413, a 429) becomes its answer
  // inside the chain, and these headers are set on it on the way out.
  app.use('*', securityHeaders);
  app.use('/api/*', noStore);
  app.use('/api/*', rateLimit);
  app.use('/api/*', partnerOfRequest);
  app.use('/api/*', corsForPartners);
  app.use('/api/*', originGuard);
  app.use('/api/*', apiBodyLimit);
  app.use('/api/*', configGuard);

  // The partner's server API: its own key-based auth and limits (server-api/app.ts), no CORS, no-store.
  app.use('/v1/*', apiBodyLimit);
  app.use('/v1/*', configGuard);
  // Vendors' signed events (vendors/webhooks.ts): a misconfigured deployment answers 500, so the vendor retries later.
  app.use('/vendor-webhooks/*', configGuard);

  app.route('/api', onboardingLink);
  app.route('/api', result);
  app.route('/api', ruok);
  app.route('/api', withdrawLink);
  app.route('/api', settings);
  app.route('/api', beacon);
  app.route('/', jwks);
  app.route('/', handoff);
  app.route('/', pinnedWidget);
  app.route('/', serverApi);
  app.route('/', ops);
  app.route('/', vendorWebhooks);

  // A known /api path asked with another method: 405 with Allow, not a 404.
  for (const [path, allow] of [
    ['/api/onboarding-link', 'POST'],
    ['/api/result', 'POST'],
    ['/api/ruok', 'GET, HEAD'],
    ['/api/settings', 'GET, HEAD'],
    ['/api/beacon', 'POST'],
  ] as const) {
    app.all(path, () => {
      throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'This method is not allowed here.', [], { Allow: allow });
    });
  }

  parts.mount?.(app);
  // After the parts: the local stack's demo home answers `/` first where it is on.
  app.route('/', home);

  app.notFound(notFound);
  app.onError(onError);
  return app;
}
