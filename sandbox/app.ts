/**
 * The vendor sandbox: every operation of the vendor's IDV service interface
 * under `/sandbox` (so `{base_url}` = `<origin>/sandbox`), with its
 * credentials, ownership and visibility rules and its ErrorObject, plus the
 * hosted-flow page that stands in for the vendor's onboarding. The worker
 * mounts it (`app.route('/', sandbox)`) while it is the vendor and calls it
 * in-process (`sandbox.fetch(request, env, ctx)`). docs/sandbox.md
 * documents every rule the spec leaves open.
 */
import { Hono, type Context } from 'hono';
import { ulid } from 'ulid';
import type * as z from 'zod/mini';
import { base64url } from '../rules/base64url';
import { httpOrigin, type SandboxAppEnv, type SandboxEnv } from './env';
import { isHttpUrl } from '../rules/http-url';
import {
  CHECKING,
  OnboardingUrlRequest,
  ResultRequest,
  SearchEntity,
  SearchQuery,
  type Entity,
  type SearchResult,
} from '../worker/vendors/idv/schemas';
import {
  credentials,
  keyList,
  LINK_TTL_SECONDS,
  OUTBOX_TTL_SECONDS,
  sameSecret,
  searchCap,
  ttlSeconds,
  DEFAULT_PROFILES,
  type CustomerConfig,
} from './config';
import { applyEntity, publicEntity } from './entity';
import { errorBody, invalid, notFound, SandboxError, zodIssues, type Issue } from './errors';
import { donePage, expiredPage, FLOW_CSS, flowPage, unknownLinkPage } from './flow-page';
import { statusFor } from './outcome';
import { OUTBOX_KEY, outboxRef } from './outbox';
import { isCandidate, normaliseName, score, searchableDocument } from './search';
import { clock, storeFor, type CheckRecord, type EntityRecord, type FlowOutcome, type Owner } from './store';
import { log } from './log';
import { stripeDouble } from './stripe/app';

/** Largest request body the sandbox reads (scans are base64). */
export const MAX_SANDBOX_BODY_BYTES = 1024 * 1024;
/** Largest stored entity (a SQLite row holds at most 2 MB; updates can add scans). */
export const MAX_ENTITY_BYTES = 1536 * 1024;
const MAX_CHANNEL = 64;

/** The hosted flows the sandbox knows (`flowId`). docs/sandbox.md lists them. */
export const FLOWS: Record<string, { ocr: boolean; requestedDocuments: boolean }> = {
  idv: { ocr: true, requestedDocuments: false },
  ocr_only: { ocr: true, requestedDocuments: false },
  manual: { ocr: false, requestedDocuments: false },
  business_docs: { ocr: false, requestedDocuments: true },
};
/** The flow used when the request names none. */
export const DEFAULT_FLOW = 'manual';

/**
 * The onboarding-url body's top-level fields: the spec's, and `entityId`,
 * which the vendor's public clients send to make a link for an existing
 * entity (the same as `entity.entityId`, without changing the entity).
 */
const ONBOARDING_FIELDS = new Set([...Object.keys(OnboardingUrlRequest.shape), 'entityId']);
/** A field name that is safe to repeat in an issue (others are `<unknown>`). */
const SAFE_KEY = /^[A-Za-z0-9_]{1,64}$/;

type C = Context<SandboxAppEnv>;

interface Caller {
  owner: Owner;
  customer: CustomerConfig;
  channel: string | null;
}

// `app.request(path)` without an env (the sandbox's node tests) leaves c.env undefined.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
const env = (c: C): SandboxEnv => c.env ?? {};
// Run as its own worker, nothing upstream set a request id.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
const requestId = (c: C): string => c.get('requestId') ?? ulid();
const iso = (ms: number): string => new Date(ms).toISOString();

function header(c: C, name: string): string | undefined {
  const v = c.req.header(name)?.trim();
  return v ? v : undefined;
}

/** Spec section 5: api_key + X-Service-CustomerID (+ X-Service-CustomerChildID for a child's key). */
function authenticate(c: C): Caller {
  const creds = credentials(env(c));
  if (!creds) throw new SandboxError(500, 'SANDBOX_MISCONFIGURED', 'SANDBOX_CREDENTIALS is not valid JSON of the documented shape.');
  const apiKey = header(c, 'api_key');
  const customerId = header(c, 'X-Service-CustomerID');
  const childId = header(c, 'X-Service-CustomerChildID');
  const missing: Issue[] = [];
  if (!apiKey) missing.push({ issue: 'is required', issueLocation: 'header.api_key' });
  if (!customerId) missing.push({ issue: 'is required', issueLocation: 'header.X-Service-CustomerID' });
  if (missing.length) throw new SandboxError(401, 'MISSING_CREDENTIALS', 'Credentials are missing.', missing);
  const refused = new SandboxError(401, 'INVALID_CREDENTIALS', 'The API key, customer ID and child ID do not match.', [
    { issue: 'the key does not belong to this customer (and child)', issueLocation: 'header.api_key' },
  ]);
  const customer = creds.customers.find((x) => x.customerId === customerId);
  if (!customer) throw refused;
  let keys: string[];
  if (childId) {
    const child = customer.children.find((x) => x.childId === childId);
    if (!child) throw refused;
    keys = keyList(child.apiKey);
  } else {
    keys = keyList(customer.apiKey);
  }
  if (!keys.some((k) => sameSecret(k, apiKey!))) throw refused;
  const channel = c.req.header('X-Service-Channel');
  return {
    owner: { customerId: customer.customerId, childId: childId ?? null },
    customer,
    channel: channel ? channel.slice(0, MAX_CHANNEL) : null,
  };
}

const isOwner = (caller: Owner, owner: Owner) => caller.customerId === owner.customerId && caller.childId === owner.childId;
/** Spec 1.5: the owner, or the owner's parent customer (a customer sees all its children's data). */
const canSee = (caller: Owner, owner: Owner) =>
  caller.customerId === owner.customerId && (caller.childId === null || caller.childId === owner.childId);

async function json(c: C): Promise<unknown> {
  const length = Number(c.req.header('Content-Length'));
  if (length > MAX_SANDBOX_BODY_BYTES) throw new SandboxError(413, 'BODY_TOO_LARGE', 'The request body is too large.');
  const text = await c.req.text();
  if (text.length > MAX_SANDBOX_BODY_BYTES) throw new SandboxError(413, 'BODY_TOO_LARGE', 'The request body is too large.');
  if (!text.trim()) throw invalid([{ issue: 'is required', issueLocation: 'body' }], 'A JSON body is required.', 'INVALID_JSON');
  try {
    return JSON.parse(text);
  } catch {
    throw invalid([{ issue: 'is not valid JSON', issueLocation: 'body' }], 'The body is not valid JSON.', 'INVALID_JSON');
  }
}

function assertStorable(record: EntityRecord): void {
  if (new TextEncoder().encode(JSON.stringify(record)).length > MAX_ENTITY_BYTES) {
    throw new SandboxError(413, 'ENTITY_TOO_LARGE', 'The entity would be too large to keep; send fewer or smaller scans.', [
      { issue: 'makes the entity too large', issueLocation: 'entity.identityDocs' },
    ]);
  }
}

function parse<S extends z.ZodMiniType>(schema: S, value: unknown, prefix = ''): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(zodIssues(parsed.error, prefix));
  return parsed.data;
}

async function isAllowedRedirect(c: C, value: string): Promise<boolean> {
  const origin = httpOrigin(value);
  if (!origin) return false;
  try {
    return await c.get('sandboxHttpCaller')!(origin, c.req.url);
  } catch {
    return false; // a check that cannot answer allows nothing
  }
}

function linkId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return base64url(bytes);
}

function maskPhone(phoneCode: string | undefined, phoneNumber: string): string {
  const digits = phoneNumber.replace(/\D/g, '');
  const masked = '*'.repeat(Math.max(digits.length - 3, 0)) + digits.slice(-3);
  return phoneCode ? `${phoneCode} ${masked}` : masked;
}

function personName(entity: Entity | undefined): string {
  const n = entity?.name;
  const full = [n?.givenName, n?.middleName, n?.familyName].filter(Boolean).join(' ').trim();
  return full || n?.displayName || 'the applicant';
}

function checkView(check: CheckRecord) {
  return {
    checkId: check.checkId,
    checkStatus: check.checkStatus,
    createdAt: iso(check.createdAt),
    ...(check.completedAt ? { completedAt: iso(check.completedAt) } : {}),
    ...(check.reprocessedAt ? { reprocessedAt: iso(check.reprocessedAt), reprocessCount: check.reprocessCount } : {}),
    ...(check.flowId ? { flowId: check.flowId } : {}),
    ...(check.provider ? { provider: check.provider } : {}),
    ...(check.channel ? { channel: check.channel } : {}),
  };
}

export const sandbox = new Hono<SandboxAppEnv>().basePath('/sandbox');

sandbox.use('*', async (c, next) => {
  if (!c.get('requestId')) c.set('requestId', ulid());
  await next();
  c.header('Cache-Control', 'no-store');
  c.header('X-Content-Type-Options', 'nosniff');
});

sandbox.onError((err, c) => {
  if (err instanceof SandboxError) return c.json(errorBody(err, requestId(c)), err.status);
  // Never the error's text: it may quote a request value.
  log.error('sandbox_error', { requestId: requestId(c), error: err instanceof Error ? err.name : 'unknown' });
  return c.json(errorBody(new SandboxError(500, 'INTERNAL_ERROR', 'The sandbox failed to process the request.'), requestId(c)), 500);
});

sandbox.notFound((c) =>
  c.json(
    errorBody(
      new SandboxError(404, 'NOT_FOUND', 'No such sandbox operation.', [{ issue: 'no such path', issueLocation: 'path' }]),
      requestId(c),
    ),
    404,
  ),
);

// Stripe Identity's double (sandbox/stripe/app.ts): its own error shape and pages.
sandbox.route('/stripe', stripeDouble);

// ------------------------------------------------------------------ 4.4 health

sandbox.get('/v2/kyc/ruok', (c) => {
  authenticate(c);
  return c.json({ status: 'OK' });
});

// ------------------------------------------------------------------ 4.1 onboarding link

sandbox.post('/idv/v2/idvalidate/onboarding-url', async (c) => {
  const caller = authenticate(c);
  const body = parse(OnboardingUrlRequest, await json(c));
  const store = storeFor(env(c));
  const now = clock.now();
  const issues: Issue[] = [];

  const flowId = body.flowId ?? DEFAULT_FLOW;
  const flow = FLOWS[flowId];
  if (!flow)
    throw invalid(
      [{ issue: `must be one of ${Object.keys(FLOWS).join(', ')}`, issueLocation: 'flowId' }],
      'Unknown flowId.',
      'UNKNOWN_FLOW',
    );
  // Known condition 1: an OCR flow without consent errors.
  if (flow.ocr && body.consent !== true) {
    throw new SandboxError(400, 'OCR_CONSENT_REQUIRED', 'This flow runs OCR, which needs consent: true.', [
      { issue: 'must be true for a flow that runs OCR', issueLocation: 'consent' },
    ]);
  }
  if (body.requestedDocuments?.length && !flow.requestedDocuments) {
    issues.push({
      issue: 'is only accepted with a flow that takes requested documents (business_docs)',
      issueLocation: 'requestedDocuments',
    });
  }
  for (const key of ['successRedirectURL', 'errorRedirectURL'] as const) {
    const v = body[key];
    if (v !== undefined && !isHttpUrl(v)) issues.push({ issue: 'must be an absolute http(s) URL', issueLocation: key });
    // Not an open redirect on the worker's origin: an HTTP caller (a developer
    // on loopback, or a holder of SANDBOX_CREDENTIALS) may send people back
    // only to a partner's page or the worker's own. The worker's in-process
    // calls carry a return address its own route already held to this rule.
    else if (v !== undefined && c.get('sandboxHttpCaller') && !(await isAllowedRedirect(c, v))) {
      issues.push({ issue: 'must be on an origin the worker allows (ALLOWED_ORIGINS, a partner, or its own)', issueLocation: key });
    }
  }
  if (body.phoneCode !== undefined && !/^\+[1-9]\d{0,3}$/.test(body.phoneCode.trim())) {
    issues.push({ issue: 'must be a country code with a leading plus sign, e.g. +61', issueLocation: 'phoneCode' });
  }
  if (body.sendSMS) {
    const digits = (body.phoneNumber ?? '').replace(/\D/g, '');
    if (!body.phoneNumber?.trim()) issues.push({ issue: 'is required when sendSMS is true', issueLocation: 'phoneNumber' });
    else if (!/^\+?[\d\s().-]+$/.test(body.phoneNumber.trim()) || digits.length < 6 || digits.length > 15) {
      issues.push({ issue: 'must be a phone number of 6 to 15 digits', issueLocation: 'phoneNumber' });
    }
  }
  // Top-level fields the sandbox does not know are refused, not ignored: a
  // field the vendor acts on (as it does on entityId) would otherwise pass
  // here and behave differently there (docs/sandbox.md).
  const raw = body as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!ONBOARDING_FIELDS.has(key))
      issues.push({ issue: 'is not a field of this operation', issueLocation: SAFE_KEY.test(key) ? key : '<unknown>' });
  }
  const topEntityId = typeof raw.entityId === 'string' && raw.entityId.trim() ? raw.entityId.trim() : undefined;
  if (raw.entityId !== undefined && !topEntityId) issues.push({ issue: 'must be a non-empty string', issueLocation: 'entityId' });
  if (topEntityId && body.entity?.entityId !== undefined && body.entity.entityId !== topEntityId) {
    issues.push({ issue: 'must name the same entity as entity.entityId', issueLocation: 'entityId' });
  }
  if (issues.length) throw invalid(issues);

  let existing: EntityRecord | null = null;
  const givenId = body.entity?.entityId ?? topEntityId;
  if (givenId !== undefined) {
    existing = await store.getEntity(givenId);
    // A link for an existing entity (top-level entityId): the owner's, or its
    // parent customer's (spec 1.5). Never a new entity in place of one the
    // caller may not use. Changing the entity (`entity`) stays the owner's.
    const where = body.entity?.entityId !== undefined ? 'entity.entityId' : 'entityId';
    if (!existing || !canSee(caller.owner, existing.owner)) throw notFound('The entity', where);
    if (body.entity && !isOwner(caller.owner, existing.owner)) throw notFound('The entity', 'entity.entityId');
  }
  const entity = applyEntity(body.entity ?? {}, existing?.entity, {
    profiles: caller.customer.profiles ?? DEFAULT_PROFILES,
    consent: body.consent === true,
  });
  const ttl = ttlSeconds(env(c)) * 1000;
  const record: EntityRecord = {
    entityId: entity.entityId!,
    owner: existing?.owner ?? caller.owner,
    entity,
    channel: existing?.channel ?? caller.channel,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
    expiresAt: now + ttl,
  };
  const check: CheckRecord = {
    checkId: crypto.randomUUID(),
    entityId: record.entityId,
    owner: caller.owner,
    checkStatus: CHECKING,
    linkId: linkId(),
    linkExpiresAt: now + LINK_TTL_SECONDS * 1000,
    flowId,
    successRedirectURL: body.successRedirectURL ?? null,
    errorRedirectURL: body.errorRedirectURL ?? null,
    customerRef: body.customerRef ?? null,
    applicationRef: body.applicationRef ?? null,
    channelRef: body.channelRef ?? null,
    provider: null,
    channel: caller.channel,
    createdAt: now,
    flowFinishedAt: null,
    outcome: null,
    completedAt: null,
    reprocessedAt: null,
    reprocessCount: 0,
    expiresAt: now + ttl,
  };
  const url = `${new URL(c.req.url).origin}/sandbox/flow/${check.linkId}`;
  assertStorable(record);
  await store.putEntity(record);
  await store.putCheck(check);

  if (body.sendSMS) {
    // The spec: the recipient name is used "when supplied"; nothing else of
    // the entity goes into the text.
    const recipient = body.recipientName?.trim() || null;
    const sender = body.senderName?.trim() || null;
    await store.addMessage({
      id: ulid(),
      customerRef: body.customerRef ?? '',
      to: maskPhone(body.phoneCode?.trim(), body.phoneNumber!),
      recipientName: recipient,
      senderName: sender,
      messageTemplateId: body.messageTemplateId ?? null,
      text: `${recipient ? `Hi ${recipient}, ` : 'Hi, '}${sender ?? 'we'} ${sender ? 'asks' : 'ask'} you to verify your identity: ${url} (the link works for ${LINK_TTL_SECONDS / 60} minutes)`,
      link: url,
      channel: caller.channel,
      createdAt: now,
      expiresAt: now + Math.min(OUTBOX_TTL_SECONDS * 1000, ttl),
    });
  }

  return c.json({ entity: publicEntity(entity), status: 'CREATED', url, urlExpiry: iso(check.linkExpiresAt) });
});

// ------------------------------------------------------------------ 4.2 result

sandbox.post('/idv/v2/idvalidate/result', async (c) => {
  const caller = authenticate(c);
  const body = parse(ResultRequest, await json(c));
  const store = storeFor(env(c));
  const entityId = body.entity?.entityId;
  if (!body.checkId && !body.token && !entityId) {
    throw invalid([{ issue: 'give checkId, token or entity.entityId', issueLocation: 'checkId' }], 'Nothing names the check.');
  }
  if (body.entity && !entityId && !body.token && !body.checkId) {
    throw invalid([{ issue: 'is required', issueLocation: 'entity.entityId' }]);
  }

  let check: CheckRecord | null;
  if (body.checkId) {
    check = await store.getCheck(body.checkId);
    if (
      !check ||
      !canSee(caller.owner, check.owner) ||
      (entityId && check.entityId !== entityId) ||
      (body.token && check.linkId !== body.token)
    ) {
      throw notFound('The check', 'checkId');
    }
  } else if (body.token) {
    check = await store.getCheckByLink(body.token);
    if (!check || !canSee(caller.owner, check.owner) || (entityId && check.entityId !== entityId)) throw notFound('The check', 'token');
  } else {
    const rec = await store.getEntity(entityId!);
    if (!rec || !canSee(caller.owner, rec.owner)) throw notFound('The entity', 'entity.entityId');
    check = (await store.listChecks(entityId!))[0] ?? null;
    if (!check) throw notFound('A check of this entity', 'entity.entityId');
  }

  const rec = await store.getEntity(check.entityId);
  if (!rec) throw notFound('The entity', 'entity.entityId');

  // OCR results supplied in the entity update it (owner only).
  const { entityId: _id, ...updates } = body.entity ?? {};
  if (Object.keys(updates).length) {
    if (!isOwner(caller.owner, rec.owner)) {
      throw new SandboxError(403, 'FORBIDDEN', 'Only the owner may change an entity.', [
        { issue: 'belongs to another account', issueLocation: 'entity' },
      ]);
    }
    rec.entity = applyEntity(body.entity!, rec.entity, { profiles: caller.customer.profiles ?? DEFAULT_PROFILES });
    rec.updatedAt = clock.now();
    assertStorable(rec);
    await store.putEntity(rec);
  }

  let changed = false;
  if (body.provider !== undefined && body.provider !== check.provider) {
    check.provider = body.provider;
    changed = true;
  }
  if (body.reprocessResult && check.checkStatus !== CHECKING) {
    check.reprocessedAt = clock.now();
    check.reprocessCount += 1;
    changed = true;
  }
  if (changed) await store.putCheck(check);

  return c.json({
    checkId: check.checkId,
    checkStatus: check.checkStatus,
    entity: publicEntity(rec.entity),
    ...(check.reprocessedAt ? { reprocessedAt: iso(check.reprocessedAt) } : {}),
  });
});

// ------------------------------------------------------------------ 4.3 search

sandbox.post('/v2/kyc/entity/search', async (c) => {
  const caller = authenticate(c);
  const query = parse(SearchQuery, c.req.query(), 'query');
  const criteria = parse(SearchEntity, await json(c)) as Entity;
  const store = storeFor(env(c));

  const searchType = query.searchType ?? 'entity_search';
  if (searchType !== 'entity_search' && searchType !== 'none') {
    throw invalid([{ issue: 'must be entity_search or none', issueLocation: 'query.searchType' }]);
  }
  const resultLimit = query.resultLimit === undefined ? undefined : Number(query.resultLimit);
  if (resultLimit !== undefined && resultLimit < 1) throw invalid([{ issue: 'must be at least 1', issueLocation: 'query.resultLimit' }]);
  const child = query.child === 'true';
  if (child && caller.owner.childId !== null) {
    throw new SandboxError(403, 'CHILD_SEARCH_NOT_ALLOWED', 'child=true is for parent accounts only.', [
      { issue: 'is for parent accounts only', issueLocation: 'query.child' },
    ]);
  }
  if (child && !caller.customer.childSearch) {
    throw new SandboxError(403, 'CHILD_SEARCH_NOT_ALLOWED', 'Child search is not enabled for this customer.', [
      { issue: 'is not enabled for this customer', issueLocation: 'query.child' },
    ]);
  }

  // Minimum criteria: familyName + givenName, or familyName + one identity document.
  if (!normaliseName(criteria.name?.familyName)) {
    throw invalid(
      [{ issue: 'is required', issueLocation: 'name.familyName' }],
      'The minimum search criteria are not met.',
      'SEARCH_CRITERIA',
    );
  }
  const docs = criteria.identityDocs ?? [];
  if (!normaliseName(criteria.name?.givenName) && !docs.some(searchableDocument)) {
    throw invalid(
      [{ issue: 'give name.givenName, or one identity document with idType, country and idNumber', issueLocation: 'name.givenName' }],
      'The minimum search criteria are not met.',
      'SEARCH_CRITERIA',
    );
  }

  const scope = child ? { customerId: caller.owner.customerId, allChildren: true as const } : caller.owner;
  const candidates = (await store.listEntities(scope)).filter((r) => canSee(caller.owner, r.owner) && isCandidate(criteria, r.entity));
  const scored = candidates.map((r) => ({ r, confidence: searchType === 'none' ? undefined : score(criteria, r.entity) }));
  if (searchType !== 'none') {
    scored.sort((a, b) => b.confidence! - a.confidence! || b.r.updatedAt - a.r.updatedAt || a.r.entityId.localeCompare(b.r.entityId));
  }
  const limit = Math.min(resultLimit ?? Number.POSITIVE_INFINITY, searchCap(env(c)));
  const onlyIds = query.onlyEntityIds === 'true';
  const entitySearchResults: SearchResult[] = scored.slice(0, limit).map(({ r, confidence }) => ({
    entityId: r.entityId,
    ...(confidence === undefined ? {} : { confidence }),
    ...(!onlyIds && isOwner(caller.owner, r.owner) ? { entity: publicEntity(r.entity) } : {}),
  }));
  return c.json({ requestId: requestId(c), entitySearchResults, totalEntitiesMatched: scored.length });
});

// ------------------------------------------------------------------ check look-ups

sandbox.get('/v2/kyc/entity/:entityId/checks', async (c) => {
  const caller = authenticate(c);
  const store = storeFor(env(c));
  const rec = await store.getEntity(c.req.param('entityId'));
  if (!rec || !canSee(caller.owner, rec.owner)) throw notFound('The entity', 'entityId');
  const checks = await store.listChecks(rec.entityId);
  return c.json({ requestId: requestId(c), entityId: rec.entityId, checks: checks.map(checkView) });
});

sandbox.get('/v2/kyc/document/:documentId/checks', async (c) => {
  const caller = authenticate(c);
  const store = storeFor(env(c));
  const documentId = c.req.param('documentId');
  const rec = await store.findEntityByDocument(documentId);
  if (!rec || !canSee(caller.owner, rec.owner)) throw notFound('The document', 'documentId');
  const checks = await store.listChecks(rec.entityId);
  return c.json({ requestId: requestId(c), documentId, entityId: rec.entityId, checks: checks.map(checkView) });
});

/** The owner's whole entity including scan contents (the spec's `/full`); never a ScanDelete scan's bytes. */
sandbox.get('/v2/kyc/entity/:entityId/full', async (c) => {
  const caller = authenticate(c);
  const rec = await storeFor(env(c)).getEntity(c.req.param('entityId'));
  if (!rec || !isOwner(caller.owner, rec.owner)) throw notFound('The entity', 'entityId');
  return c.json({ requestId: requestId(c), entity: publicEntity(rec.entity, true) });
});

// ------------------------------------------------------------------ outbox (the demo's)

// Only the browser that made the link reads it: by its key, never by a reference (outbox.ts).
sandbox.get('/outbox', async (c) => {
  const key = c.req.query('key') ?? '';
  if (!OUTBOX_KEY.test(key))
    throw invalid([{ issue: 'must be the outbox key this browser made the link with', issueLocation: 'query.key' }]);
  const messages = await storeFor(env(c)).listMessages(await outboxRef(key));
  return c.json({
    messages: messages.map((m) => ({
      to: m.to,
      recipientName: m.recipientName,
      senderName: m.senderName,
      messageTemplateId: m.messageTemplateId,
      text: m.text,
      link: m.link,
      createdAt: iso(m.createdAt),
    })),
  });
});

// ------------------------------------------------------------------ hosted flow

sandbox.get('/flow.css', (c) => {
  c.header('Content-Type', 'text/css; charset=utf-8');
  return c.body(FLOW_CSS);
});

function originOf(url: string | null): string | null {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
}

function htmlPage(c: C, html: string, status: 200 | 400 | 404 | 410, check?: CheckRecord) {
  const formTargets = check ? [...new Set([originOf(check.successRedirectURL), originOf(check.errorRedirectURL)].filter(Boolean))] : [];
  c.header(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' ${formTargets.join(' ')}; frame-ancestors 'none'; base-uri 'none'`.replace(
      /\s+;/g,
      ';',
    ),
  );
  c.header('Referrer-Policy', 'no-referrer');
  return c.html(html, status);
}

function withCheckId(url: string, checkId: string): string {
  const u = new URL(url);
  u.searchParams.set('checkId', checkId);
  return u.toString();
}

sandbox.get('/flow/:linkId', async (c) => {
  const store = storeFor(env(c));
  const check = await store.getCheckByLink(c.req.param('linkId'));
  if (!check) return htmlPage(c, unknownLinkPage(), 404);
  if (check.flowFinishedAt) return htmlPage(c, donePage(), 200, check);
  if (clock.now() >= check.linkExpiresAt) return htmlPage(c, expiredPage(), 410);
  const rec = await store.getEntity(check.entityId);
  return htmlPage(
    c,
    flowPage({
      action: `/sandbox/flow/${encodeURIComponent(check.linkId)}`,
      personName: personName(rec?.entity),
      expiresAt: new Date(check.linkExpiresAt).toUTCString(),
    }),
    200,
    check,
  );
});

sandbox.post('/flow/:linkId', async (c) => {
  const store = storeFor(env(c));
  const check = await store.getCheckByLink(c.req.param('linkId'));
  if (!check) return htmlPage(c, unknownLinkPage(), 404);
  const redirect = (outcome: FlowOutcome) => {
    const target = outcome === 'complete' ? check.successRedirectURL : check.errorRedirectURL;
    return target ? c.redirect(withCheckId(target, check.checkId), 303) : htmlPage(c, donePage(), 200, check);
  };
  // A second press (double submit, back button) changes nothing.
  if (check.flowFinishedAt && check.outcome) return redirect(check.outcome);
  if (clock.now() >= check.linkExpiresAt) return htmlPage(c, expiredPage(), 410);

  let outcome: unknown;
  try {
    outcome = (await c.req.parseBody()).outcome;
  } catch {
    outcome = undefined;
  }
  if (outcome !== 'complete' && outcome !== 'fail') return htmlPage(c, unknownLinkPage(), 400);

  const rec = await store.getEntity(check.entityId);
  const now = clock.now();
  check.outcome = outcome;
  check.flowFinishedAt = now;
  check.checkStatus = statusFor(outcome, rec?.entity.name?.familyName);
  check.completedAt = check.checkStatus === CHECKING ? null : now;
  await store.putCheck(check);
  return redirect(outcome);
});
