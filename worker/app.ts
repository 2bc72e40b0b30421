/**
 * The worker's Hono app: middleware in STYLE.md's order (request id → log →
 * CORS → origin guard → secure headers → body limit → configuration guard →
 * rate limit), the /api routes, the sandbox when it is the vendor, and one
 * error envelope. The entry (`index.ts`) adds the Durable Object classes.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import { ulid } from 'ulid';
import { usesSandbox, type AppEnv } from './env';
import { ApiError, errorResponse } from './errors';
import { clientIp, enforce, ipKey } from './limits';
import { RegistryError, SealingError } from './partners/registry';
import { resolvePartner } from './partners/resolve';
import { onboardingLink } from './routes/onboarding-link';
import { result } from './routes/result';
import { ruok } from './routes/ruok';
import { sandbox } from './sandbox/app';
import { configuredSessionSecret } from './session';
import { configuredKeyJwks } from './outcomes/signing-keys';
import { configuredPublicOrigin, isLoopbackHost, publicOrigin } from './public-origin';
import { jwks } from './routes/jwks';
import { handoff } from './handoff/routes';
import { demoReceiver } from './outcomes/demo-receiver';
import { home } from './routes/home';
import { PINNED_WIDGET_PATH, pinnedWidget } from './routes/pinned-widget';
import { beacon } from './ops/beacon';
import { ops } from './ops/routes';

export const MAX_BODY_BYTES = 64 * 1024;

const app = new Hono<AppEnv>();

app.use('*', async (c, next) => {
  const requestId = ulid();
  c.set('requestId', requestId);
  const started = performance.now();
  await next();
  c.res.headers.set('X-Request-Id', requestId);
  // The widget counts a link's lifetime on the worker's clock (its browser's may be wrong).
  if (!c.res.headers.has('Date')) c.res.headers.set('Date', new Date().toUTCString());
  // One structured line per request. Never a body, a query string or a header
  // value: those may carry personal data or credentials.
  console.log(
    JSON.stringify({
      level: c.res.status >= 500 ? 'error' : 'info',
      requestId,
      method: c.req.method,
      route: c.req.routePath,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      vendorStatus: c.get('vendorStatus'),
      partner: c.get('partner')?.id,
    }),
  );
});

// Second, so every answer carries them: an error thrown by any later
// middleware (a 403 from the origin guard, a 413, a 429) becomes its answer
// inside the chain, and these headers are set on it on the way out.
// The versioned widget script is loaded cross-origin as a module: it needs
// `Cross-Origin-Resource-Policy: cross-origin` (STYLE: relax it on that route only).
const strictHeaders = secureHeaders();
const scriptHeaders = secureHeaders({ crossOriginResourcePolicy: 'cross-origin' });
app.use('*', (c, next) => (PINNED_WIDGET_PATH.test(c.req.path) ? scriptHeaders : strictHeaders)(c, next));

// The partner the request works for, from its exact Origin (partners/resolve.ts).
// A registry partner whose secrets cannot be opened stops here: no call is
// ever made with missing or wrong credentials.
app.use('/api/*', async (c, next) => {
  let partner;
  try {
    partner = await resolvePartner(c.env, c.req.url, c.req.header('Origin'));
  } catch (err) {
    if (err instanceof SealingError || err instanceof RegistryError) {
      console.error(JSON.stringify({ level: 'error', requestId: c.get('requestId'), error: err.name, detail: err.message }));
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
app.use(
  '/api/*',
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
app.use('/api/*', async (c, next) => {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && !c.get('partner')) {
    throw new ApiError(403, 'ORIGIN_NOT_ALLOWED', 'This site is not allowed to use this service.');
  }
  await next();
});

app.use(
  '/api/*',
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_BODY_BYTES / 1024} KB.`);
    },
  }),
);

app.use('/api/*', async (c, next) => {
  const env = c.env;
  const misconfigured = () => new ApiError(500, 'MISCONFIGURED', 'The service is misconfigured. The operator has to fix its settings.');
  // Tokens need an issuer: PUBLIC_ORIGIN, or the request's origin on loopback.
  if (!publicOrigin(env, c.req.url)) throw misconfigured();
  if (env.RESULT_SIGNING_KEYS?.trim() && !configuredKeyJwks(env)) throw misconfigured();
  if (!usesSandbox(env)) {
    let baseOk = false;
    try {
      baseOk = /^https?:$/.test(new URL(env.KYC_BASE_URL!.trim()).protocol);
    } catch {
      baseOk = false;
    }
    if (
      !baseOk ||
      !configuredSessionSecret(env) ||
      !configuredKeyJwks(env) ||
      !configuredPublicOrigin(env) ||
      !env.KYC_API_KEY ||
      !env.KYC_CUSTOMER_ID
    ) {
      throw misconfigured();
    }
  }
  await next();
});

// Counted per partner: one partner's traffic (or abuse) never spends another's budget.
app.use('/api/*', async (c, next) => {
  const ip = clientIp(c.req.raw.headers);
  const pid = c.get('partner')?.id ?? '-';
  await enforce(c.env.RL_IP, `${pid} ${ipKey(ip)}`, 'requests');
  // IPv6: a second, looser limit per /48, so the /64s of one allocation do not each get a budget.
  if (ip.includes(':')) await enforce(c.env.RL_IP_48, `${pid} ${ipKey(ip, 48)}`, 'requests');
  await next();
});

app.route('/api', onboardingLink);
app.route('/api', result);
app.route('/api', ruok);
app.route('/api', beacon);
app.route('/', jwks);
app.route('/', handoff);
app.route('/', home);
app.route('/', pinnedWidget);
app.route('/', ops);

// A known /api path asked with another method: 405 with Allow, not a 404.
for (const [path, allow] of [
  ['/api/onboarding-link', 'POST'],
  ['/api/result', 'POST'],
  ['/api/ruok', 'GET, HEAD'],
  ['/api/beacon', 'POST'],
] as const) {
  app.all(path, () => {
    throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'This method is not allowed here.', [], { Allow: allow });
  });
}

// The sandbox exists only while it is the vendor. Its vendor API answers
// HTTP callers with the documented default credentials on loopback hosts only
// (a laptop); a deployed sandbox (a sales demo) answers them only with
// SANDBOX_CREDENTIALS set on purpose, since anyone could read every visitor's
// entities with the public default key. The worker's own calls reach the
// sandbox in-process (vendor/from-env.ts), not through here, and keep working;
// the hosted-flow pages and a visitor's own outbox stay.
const SANDBOX_VENDOR_API = /^\/sandbox\/(idv|v2)\//;
app.use('/sandbox/*', async (c, next) => {
  if (!usesSandbox(c.env)) throw new ApiError(404, 'NOT_FOUND', 'There is nothing here.');
  if (SANDBOX_VENDOR_API.test(c.req.path) && !c.env.SANDBOX_CREDENTIALS?.trim() && !isLoopbackHost(new URL(c.req.url).hostname)) {
    throw new ApiError(404, 'NOT_FOUND', 'There is nothing here.');
  }
  // What writes (the vendor API on loopback, the hosted flow's submit, the
  // demo's receiver) spends a per-client budget like /api's; reading pages
  // and the demo's polling of its own outbox do not.
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD')
    await enforce(c.env.RL_IP, `sandbox ${ipKey(clientIp(c.req.raw.headers))}`, 'requests');
  // The worker's own calls reach the sandbox in-process, past this point; an
  // HTTP caller's redirect addresses are held to the origins the worker allows.
  c.set('sandboxHttpCaller', true);
  await next();
});
app.use(
  '/sandbox/*',
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_BODY_BYTES / 1024} KB.`);
    },
  }),
);
app.route('/', sandbox);
app.route('/', demoReceiver);

app.notFound((c) => errorResponse(c, new ApiError(404, 'NOT_FOUND', 'There is nothing here.')));

app.onError((err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  if (err instanceof HTTPException && err.status < 500) {
    return errorResponse(c, new ApiError(err.status as 400, 'VALIDATION_FAILED', 'The request could not be read.'));
  }
  // The error's name only: its message could quote input.
  console.error(JSON.stringify({ level: 'error', requestId: c.get('requestId'), error: err?.name ?? 'Error' }));
  return errorResponse(c, new ApiError(500, 'INTERNAL_ERROR', 'Something went wrong on our side. Please try again.'));
});

export default app;
