/**
 * `/v1`: the partner's server API (docs/server-api.md), server to server
 * with a server key. Each handler is served from its definition in
 * `routes.ts` (`serve.ts`), which is also what `GET /v1/openapi.json`
 * shows; every answer `Cache-Control: no-store`, no CORS headers, errors an
 * ErrorObject. The browser API never imports this.
 */
import type { Context } from 'hono';
import { Hono } from 'hono/tiny';
import type { AppEnv } from '../app-env';
import { bindingIfAny } from '../lib/env';
import { ApiError, validationError } from '../lib/errors';
import { idempotency } from '../middleware/idempotency';
import { countFailedAttempt, refuseLimitedClient } from '../lib/failed-attempts';
import { enforce } from '../lib/limits';
import { normaliseOrigin } from '../lib/origins';
import { trustedOwnOrigin } from '../config';
import { readJson } from '../lib/validation';
import { isAdapterError, vendorApiError } from '../vendors/errors';
import { adapterOf, failoverOf, vendorsOf } from '../vendors/for-partner';
import { isVendorId, use, VendorMismatchError, type SearchMatch } from '../vendors/adapter';
import { clientSecretFor } from '../verifications/client-secret';
import { issueResultToken } from '../verifications/issue-token';
import { newVerificationId, VERIFICATION_ID, vendorOf, type Verification } from '../verifications/verification';
import { lifecycle, startedByServer } from '../verifications/lifecycle';
import { publicState } from '../verifications/public-state';
import { listIndex, ownedEntities, type IndexRow } from '../verifications/verification-index';
import { authenticate } from './auth';
import { cancelVerification, redactVerification } from '../verifications/at-vendor';
import type { Capabilities } from './schemas';
import { routes } from './routes';
import {
  CreateVerificationRequest,
  EntitySearchRequest,
  type CreatedVerification,
  type EntitySearchResults,
  type Person,
  type Verification as V1Verification,
  type VerificationSummary,
} from './schemas';
import { refuseOtherMethods, serve } from './serve';
import { log } from '../lib/log';

export const DEFAULT_EXPIRES_IN_SECONDS = 86_400;
const DEFAULT_LIMIT = 20;

const iso = (t: number | undefined | null) => (t === null ? undefined : iso1(t));
const iso1 = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
const notFound = () => new ApiError(404, 'NOT_FOUND', 'There is no such verification.');

/** An index row as the list shows it. */
function fromRow(r: IndexRow): VerificationSummary {
  return {
    verificationId: r.id,
    status: r.status as VerificationSummary['status'],
    ...(r.check_status !== null ? { checkStatus: r.check_status } : {}),
    ...(r.customer_ref !== null ? { customerRef: r.customer_ref } : {}),
    customerRefSource: r.customer_ref_source === 'server' ? 'server' : 'page',
    // As the single read: once linked (a row written before migrations/0005 reads idv, as its record does).
    ...(r.link_created_at !== null ? { vendor: isVendorId(r.vendor) ? r.vendor : 'idv' } : {}),
    createdAt: iso(r.created_at)!,
    ...(r.link_created_at !== null ? { linkCreatedAt: iso(r.link_created_at) } : {}),
    ...(r.final_at !== null ? { finalAt: iso(r.final_at) } : {}),
    ...(r.status === 'canceled' && r.ended_at !== null ? { canceledAt: iso(r.ended_at) } : {}),
    expiresAt: iso(r.expires_at)!,
    ...rowAttempts(r),
    livemode: r.livemode === 1,
  };
}

/** A row's ended attempts as `GET` shows them (a row written before migration 0004 has none until its next change). */
function rowAttempts(r: IndexRow): Pick<VerificationSummary, 'attempts'> {
  if (!r.attempts) return {};
  const attempts = JSON.parse(r.attempts) as { checkStatus: string; endedAt: number }[];
  return { attempts: attempts.map((a) => ({ checkStatus: a.checkStatus, endedAt: iso(a.endedAt)! })) };
}

/** A verification as `/v1` shows it: its public state (what every webhook event carries too), the reference and the entity. */
export function summary(v: Verification, livemode: boolean): VerificationSummary {
  return {
    verificationId: v.id,
    ...publicState(v),
    ...(v.customerRef !== undefined ? { customerRef: v.customerRef } : {}),
    customerRefSource: v.customerRefSource ?? 'page',
    ...(v.entityId !== undefined ? { entityId: v.entityId } : {}),
    ...(v.linkCreatedAt !== undefined || v.entityId !== undefined ? { vendor: vendorOf(v) } : {}),
    ...(v.partnerOrigin ? { partnerOrigin: v.partnerOrigin } : {}),
    livemode,
  };
}

/**
 * The statuses in which the person can still work on a verification: its
 * client secret comes with it, so the partner's page can be given it again
 * (resume) instead of asking for a new verification on every load.
 */
const RESUMABLE: ReadonlySet<string> = new Set(['created', 'open', 'requires_input']);

async function describe(c: Context<AppEnv>, v: Verification, person?: Person): Promise<V1Verification> {
  const livemode = c.var.config.livemode;
  const w = v.webhook;
  const owed = await c.var.ports.verifications.execute(v.id, { type: 'undelivered' });
  return {
    ...summary(v, livemode),
    ...(RESUMABLE.has(lifecycle(v)) ? { clientSecret: await clientSecretFor(c.env, c.var.ports, v.id) } : {}),
    ...(lifecycle(v) === 'final' && v.entityId !== undefined
      ? { resultToken: await issueResultToken(c.env, c.var.ports, v, c.var.clock()) }
      : {}),
    webhook: {
      state: w.state,
      attempts: w.attempts,
      ...(w.at !== undefined && w.attempts > 0 ? { lastAttemptAt: iso(w.at) } : {}),
      ...(w.lastStatus !== undefined ? { lastResponseStatus: w.lastStatus } : {}),
      undelivered: owed.map((e) => ({
        webhookId: e.webhookId,
        type: e.type,
        sequence: e.sequence,
        state: e.state,
        attempts: e.attempts,
        ...(e.lastResponseStatus !== undefined ? { lastResponseStatus: e.lastResponseStatus } : {}),
        ...(e.lastAttemptAt !== undefined ? { lastAttemptAt: iso(e.lastAttemptAt) } : {}),
        ...(e.nextAttemptAt !== undefined ? { nextAttemptAt: iso(e.nextAttemptAt) } : {}),
      })),
    },
    ...(person ? { person } : {}),
  };
}

/** The caller's verification, or 404 (unknown, malformed, or another partner's: never 403). */
async function own(c: Context<AppEnv>): Promise<Verification> {
  const id = c.req.param('verificationId') ?? '';
  if (!VERIFICATION_ID.test(id)) throw notFound();
  const v = await c.var.ports.verifications.execute(id, { type: 'read' });
  if (!v || v.partnerId !== c.get('partner')!.id) throw notFound();
  return v;
}

/**
 * The vendor's record of the person for a final verification, asked at
 * request time (the adapter's `person`): never stored, never logged; only the
 * adapter's allow-list leaves (idv: vendors/idv/person.ts).
 */
async function fetchPerson(c: Context<AppEnv>, v: Verification): Promise<Person> {
  try {
    const adapter = adapterOf(c, c.get('partner')!, vendorOf(v));
    // The vendor's record of the person: only the verification's own subject (a mismatch is thrown, never shown).
    return await use(
      adapter,
      'person',
    )({
      vendor: adapter.id,
      subject: v.entityId!,
      linkedAt: v.linkCreatedAt ?? v.createdAt,
    });
  } catch (err) {
    if (isAdapterError(err)) {
      if (err instanceof VendorMismatchError) log.error('vendor_mismatch', { verificationId: v.id, route: 'v1.person' });
      throw vendorApiError(err, 'result');
    }
    throw err;
  }
}

export const serverApi = new Hono<AppEnv>();

// No CORS (a browser never holds a server key), never cached, and a caller known by its key.
serverApi.use('/v1/*', async (c, next) => {
  await next();
  c.header('Cache-Control', 'no-store');
});

// The document, which the build makes from routes.ts (`npm run openapi`: worker/server-api/openapi.ts) among the
// static assets: read through ASSETS, so zod's JSON Schema converter stays out of the bundle (docs/architecture.md).
// run_worker_first covers /v1/*, so the answer is this route's: no key, no-store and no CORS, as every /v1 answer.
serve(serverApi, routes.openapi, async (c) => {
  const res = await bindingIfAny(c.env, 'ASSETS')?.fetch(new URL(routes.openapi.path, c.req.url).href);
  if (!res?.ok) throw new ApiError(404, 'NOT_FOUND', 'The OpenAPI document is not built: run `npm run build`.');
  return c.body(await res.text(), 200, { 'Content-Type': 'application/json' });
});

serverApi.use('/v1/*', async (c, next) => {
  if (c.req.method === 'OPTIONS')
    throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'This API is for servers: no CORS.', [], { Allow: 'GET, POST' });
  // A client that kept sending wrong keys is refused before its key is looked up (no registry read).
  const limited = refuseLimitedClient('v1', c.req.raw.headers);
  if (limited) throw limited;
  let caller;
  try {
    caller = await authenticate(c.env, c.var.ports, c.req.url, c.req.header('Authorization'), c.var.config.livemode);
  } catch (err) {
    if (err instanceof ApiError && err.errorCode === 'UNAUTHENTICATED') await countFailedAttempt(c.env, 'v1', c.req.raw.headers);
    throw err;
  }
  c.set('partner', caller.partner);
  const key = caller.keyHash.slice(0, 32);
  await enforce(c.env, 'RL_SERVER_KEY', key, 'requests with this server key');
  // Search finds people by name: it has its own, smaller budget per key, so a leaked or careless key cannot
  // try names at the pace of the rest of /v1 (RL_SEARCH in wrangler.toml).
  if (c.req.path === routes.searchEntities.path) await enforce(c.env, 'RL_SEARCH', key, 'searches with this server key');
  await next();
});

// Idempotency-Key (middleware/idempotency.ts): the client secret is not kept with the answer; a replay derives it again.
// A verification that has moved on (canceled, final, expired) is answered as it is now, without a secret that no
// longer works.
/** The index (D1), or the 500 an operator has to fix. */
function indexDb(c: Context<AppEnv>): D1Database {
  const db = bindingIfAny(c.env, 'DB');
  if (!db) throw new ApiError(500, 'MISCONFIGURED', 'The service is misconfigured. The operator has to fix its settings.');
  return db;
}

/** Results a search answers at most (and asks the vendor for unless the caller asks for fewer). */
export const SEARCH_RESULT_LIMIT = 50;
/** The fewest characters a name in search criteria may have: a one-letter name matches too many people to be a search. */
export const SEARCH_NAME_MIN = 2;

/**
 * The minimum search criteria: the spec's (a family name with a given name,
 * or with one whole identity document), each name at least SEARCH_NAME_MIN
 * characters, and a given name only with a date of birth (or a document): so
 * names cannot be enumerated letter by letter.
 */
function minimumCriteria(body: EntitySearchRequest): void {
  const filled = (s: string | undefined) => (s?.trim().length ?? 0) >= SEARCH_NAME_MIN;
  const family = filled(body.name?.familyName);
  const given = filled(body.name?.givenName);
  const born = Boolean(body.dateOfBirth?.dateOfBirth?.trim());
  const document = (body.identityDocs ?? []).some((d) => filled(d.idType) && filled(d.country) && filled(d.idNumber));
  if (family && (document || (given && born))) return;
  const short = ` (at least ${SEARCH_NAME_MIN} characters)`;
  throw new ApiError(400, 'VALIDATION_FAILED', 'The minimum search criteria are not met.', [
    ...(family ? [] : [{ issue: `is required${short}`, issueLocation: 'name.familyName' }]),
    ...(document || (given && born)
      ? []
      : [
          ...(given ? [] : [{ issue: `is required without a document${short}`, issueLocation: 'name.givenName' }]),
          ...(born ? [] : [{ issue: 'is required with a given name, without a document', issueLocation: 'dateOfBirth' }]),
          { issue: 'needs idType, country and idNumber without name.givenName and dateOfBirth', issueLocation: 'identityDocs' },
        ]),
  ]);
}

// What the caller's vendors can do (docs/vendors.md "Capabilities"): built from the configuration, no vendor call.
serve(serverApi, routes.capabilities, (c) => {
  const partner = c.get('partner')!;
  const cfg = c.var.config;
  const vendors = vendorsOf(cfg, partner).map((id) => {
    const adapter = adapterOf(c, partner, id);
    return { vendor: id, livemode: adapter.livemode, capabilities: { ...adapter.capabilities } };
  });
  const failover = failoverOf(cfg, partner);
  return c.json({ vendors, failover } satisfies Capabilities);
});

// The vendor's search under this partner's own vendor account (its child ID): never `child` (other accounts'
// entities) nor `searchType`. The vendor's own visibility is not trusted alone: only entities one of this
// partner's verifications holds are answered at all (the index's entity_owners; a redaction forgets its owner
// row): another partner's match, even its id and confidence, is left out (that a person is known elsewhere is
// itself personal), and so is the count of what was left out. At most SEARCH_RESULT_LIMIT results. Neither the
// criteria nor the answer is logged or kept.
serve(serverApi, routes.searchEntities, async (c, { query: q }) => {
  const partner = c.get('partner')!;
  const { data: body } = await readJson(c, EntitySearchRequest);
  minimumCriteria(body);
  const onlyIds = q.onlyEntityIds === 'true';
  const limit = Math.min(q.resultLimit ?? SEARCH_RESULT_LIMIT, SEARCH_RESULT_LIMIT);
  let found: SearchMatch[];
  try {
    // The partner's first vendor's search (a vendor without one: 501 CAPABILITY_UNAVAILABLE, before any call).
    const search = use(adapterOf(c, partner, vendorsOf(c.var.config, partner)[0]!), 'search');
    // The minimum criteria held, so the family name is there; a document without idType only scores nothing.
    found = await search(body, { limit, ...(onlyIds ? { onlyEntityIds: true } : {}) });
  } catch (err) {
    if (isAdapterError(err)) throw vendorApiError(err, 'result');
    throw err;
  }
  const owned = await ownedEntities(
    indexDb(c),
    partner.id,
    c.var.config.livemode,
    found.map((r) => r.entityId),
  );
  const results: EntitySearchResults['results'] = found
    .filter((r) => owned.has(r.entityId))
    .slice(0, limit)
    .map((r) => ({
      entityId: r.entityId,
      ...(typeof r.confidence === 'number' ? { confidence: r.confidence } : {}),
      ...(!onlyIds && r.person ? { entity: r.person } : {}),
    }));
  return c.json({ requestId: c.get('requestId'), totalEntitiesMatched: results.length, results } satisfies EntitySearchResults);
});

const idempotentCreate = idempotency({
  replay: async (c, answer) => {
    const stored = JSON.parse(answer.body) as Omit<CreatedVerification, 'clientSecret'>;
    const now = await c.var.ports.verifications.execute(stored.verificationId, { type: 'read' });
    if (!now || now.partnerId !== c.get('partner')!.id) throw notFound();
    if (!RESUMABLE.has(lifecycle(now))) return c.json(await describe(c, now), 200);
    return c.json(
      { ...stored, clientSecret: await clientSecretFor(c.env, c.var.ports, stored.verificationId) } satisfies CreatedVerification,
      201,
    );
  },
  keep: async (res) => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- test/tsconfig.json compiles this file with DOM types too
    const { clientSecret: _secret, ...answer } = (await res.json()) as CreatedVerification;
    return { status: res.status, body: JSON.stringify(answer) };
  },
});

serve(
  serverApi,
  routes.createVerification,
  async (c, { headers }) => {
    const env = c.env;
    const partner = c.get('partner')!;
    const { data: body, text } = await readJson(c, CreateVerificationRequest);
    // The configuration guard refused the request unless the worker knows its own origin.
    const own = trustedOwnOrigin(c.var.config, c.req.url)!;
    if (body.returnUrl !== undefined) {
      const origin = normaliseOrigin(body.returnUrl);
      if (!origin || !/^https?:\/\//i.test(body.returnUrl) || !(partner.origins.includes(origin) || origin === own)) {
        throw validationError([{ issue: 'must be a page on one of your origins', issueLocation: 'returnUrl' }]);
      }
    }
    const key = headers['Idempotency-Key'];
    if (key) {
      const replay = await c.var.idempotency.claim(`${partner.id} v1 ${key}`, text);
      if (replay) return replay;
    }
    // Another partner's entity (or an unknown one) is a 404, as another partner's verification is: no enumeration.
    if (
      body.entityId !== undefined &&
      !(await ownedEntities(indexDb(c), partner.id, c.var.config.livemode, [body.entityId])).has(body.entityId)
    ) {
      throw new ApiError(404, 'NOT_FOUND', 'There is no such entity among your verifications.', [
        { issue: 'is not the entity of one of your verifications', issueLocation: 'entityId' },
      ]);
    }
    const maxAttempts = body.maxAttempts ?? partner.maxAttempts;
    const v = startedByServer(
      {
        id: newVerificationId(),
        partnerId: partner.id,
        customerRef: body.customerRef,
        customerRefSource: 'server',
        workerOrigin: own,
        livemode: c.var.config.livemode,
        createdAt: c.var.clock(),
        server: {
          ...(body.returnUrl ? { returnUrl: body.returnUrl } : {}),
          ...(body.sms ? { sms: true } : {}),
          ...(body.entityId !== undefined ? { entityId: body.entityId } : {}),
        },
        ...(maxAttempts !== undefined ? { maxAttempts } : {}),
      },
      body.expiresInSeconds ?? DEFAULT_EXPIRES_IN_SECONDS,
    );
    await c.var.ports.verifications.execute(v.id, { type: 'create', verification: v });
    const answer = { verificationId: v.id, status: 'created' as const, expiresAt: iso(v.deadline)!, livemode: c.var.config.livemode };
    return c.json({ ...answer, clientSecret: await clientSecretFor(env, c.var.ports, v.id) } satisfies CreatedVerification, 201);
  },
  [idempotentCreate],
);

serve(serverApi, routes.listVerifications, async (c, { query: q }) => {
  if (q.cursor !== undefined && !VERIFICATION_ID.test(q.cursor)) {
    throw validationError([{ issue: 'is not a cursor of this list', issueLocation: 'cursor' }]);
  }
  const db = bindingIfAny(c.env, 'DB');
  if (!db) throw new ApiError(500, 'MISCONFIGURED', 'The service is misconfigured. The operator has to fix its settings.');
  const limit = q.limit ?? DEFAULT_LIMIT;
  // A page-set reference is whatever a script claiming the partner's origin sent: looking a customer up by
  // reference finds only the server's own unless the caller asks for the page's too.
  const { customerRefSource = q.customerRef !== undefined ? 'server' : 'any', ...filter } = q;
  const rows = await listIndex(db, c.get('partner')!.id, c.var.config.livemode, {
    ...filter,
    ...(customerRefSource !== 'any' ? { customerRefSource } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit).map(fromRow);
  return c.json({ data: page, ...(rows.length > limit ? { nextCursor: page.at(-1)!.verificationId } : {}) });
});

serve(serverApi, routes.getVerification, async (c, { query: q }) => {
  const v = await own(c);
  let person: Person | undefined;
  if (q.include === 'person') {
    if (lifecycle(v) !== 'final') {
      throw new ApiError(409, 'NOT_FINAL', 'The verified person can be read once the status is final.', [
        { issue: 'needs a final verification', issueLocation: 'include' },
      ]);
    }
    if (v.entityId === undefined) {
      throw new ApiError(409, 'REDACTED', 'This verification was redacted: the worker no longer knows its entity.', [
        { issue: 'is not available after a redaction', issueLocation: 'include' },
      ]);
    }
    person = await fetchPerson(c, v);
  }
  return c.json(await describe(c, v, person));
});

serve(serverApi, routes.cancelVerification, async (c) => {
  const v = await own(c);
  // At the vendor first, in the verification's renewal turn: a fault there changes nothing here (at-vendor.ts).
  const after = await cancelVerification(c, v.id);
  if (!after) throw notFound();
  if (lifecycle(after) !== 'canceled')
    throw new ApiError(409, 'VERIFICATION_ENDED', `This verification is ${lifecycle(after)}: it cannot be canceled.`);
  return c.json(await describe(c, after));
});

serve(serverApi, routes.redactVerification, async (c) => {
  const v = await own(c);
  // Ours happens whatever the vendor answered; what it could not erase is asked again by the next redact (at-vendor.ts).
  const after = await redactVerification(c, v.id);
  if (!after) throw notFound();
  return c.json(await describe(c, after));
});

serve(serverApi, routes.redeliverWebhook, async (c) => {
  const v = await own(c);
  const event = await c.var.ports.verifications.execute(v.id, { type: 'redeliver' });
  if (!event) throw new ApiError(409, 'NO_EVENT', 'This verification has not ended yet: there is no event to send again.');
  return c.json({ verificationId: v.id, type: event.type, webhookId: event.id, state: 'queued' as const }, 202);
});

// A known /v1 path asked with another method: 405 with Allow; anything else under /v1: 404.
refuseOtherMethods(serverApi, Object.values(routes));
