/**
 * POST /api/onboarding-link — docs/api.md "Browser-facing API". With a `session` and no details: a new link
 * (`renew-link.ts`); with a `session` and the details: the next attempt (`next-attempt.ts`).
 *
 * A first link, step by step: `serverStarted` (a verification the partner's server started), `checkedRequest`
 * (the request's own checks), `claimKey` (its Idempotency-Key), then `makeLink`: `botCheck`, the text's and the
 * open verifications' budgets, `vendorLink` (the vendor's link through the partner's adapter, `vendors/link.ts`), `stored`,
 * `answered`.
 */
import { Hono } from 'hono/tiny';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type * as z from 'zod/mini';
import { OnboardingLinkRequest, RenewLinkRequest, ResumeLinkRequest, type OnboardingLinkAnswer } from '../contract';
import { returnKeysOf } from '../vendors/return-params';
import type { AppEnv } from '../app-env';
import { holdOpen, releaseHolds } from '../lib/allowances';
import { ApiError, validationError } from '../lib/errors';
import { idempotency } from '../middleware/idempotency';
import { clientIp, ipKey } from '../lib/limits';
import type { ParsedPhone } from '../lib/phone';
import type { Partner } from '../partners/partner';
import { isReturnOrigin, normaliseOrigin } from '../lib/origins';
import { trustedOwnOrigin } from '../config';
import { checkedPhone, spendText, textedTo } from './phone-check';
import { createSession, requireSession, sessionInvalid, sessionOwns } from './session';
import { sessionSecret } from '../lib/session-secret';
import { nextAttempt } from './next-attempt';
import { verifyTurnstile } from '../lib/turnstile';
import { capabilityUnavailable, isAdapterError, VendorError, vendorApiError } from '../vendors/errors';
import { adapterOf, failoverOf, vendorsOf } from '../vendors/for-partner';
import { linkWithFailover } from '../vendors/failover';
import type { MadeLink } from '../vendors/link';
import { keptUrl } from '../vendors/hosted-url';
import type { VendorId } from '../vendors/adapter';
import { readJson } from '../lib/validation';
import { requireMinAge } from '../lib/min-age';
import { claimCode, newVerificationId, type Handoff, type Verification } from '../verifications/verification';
import { lifecycle, shownLinkExpiry, startedWithLink } from '../verifications/lifecycle';
import { randomToken } from '../lib/random';
import { qrModules } from '../handoff/qr';
import { handoffUrls, returnUrls } from '../handoff/urls';
import { renewLink } from './renew-link';
import { resumeLink } from './resume-link';
import { clientSecretVerification } from './client-secret';
import { track } from '../ops/track';
import { letGoAtVendor } from '../verifications/at-vendor';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_\-:.]{8,128}$/;

export const onboardingLink = new Hono<AppEnv>();

// The operator's `link.refused`: a refusal of this route (4xx), by error code and the paths of the fields it named.
onboardingLink.use(
  '/onboarding-link',
  createMiddleware<AppEnv>(async (c, next) => {
    await next();
    const err = c.error;
    if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429) {
      track(c, { type: 'link.refused', errorCode: err.errorCode, fields: err.issues.map((i) => i.issueLocation) });
    }
  }),
);

onboardingLink.post('/onboarding-link', idempotency(), async (c) => {
  const { data: body, text } = await readJson(c, (b) =>
    // The person's details make it a link request (a first link, or a next attempt); without them, a renewal or a resume.
    'name' in b
      ? OnboardingLinkRequest
      : 'session' in b
        ? RenewLinkRequest
        : 'clientSecret' in b
          ? ResumeLinkRequest
          : OnboardingLinkRequest,
  );
  if (!('name' in body)) return 'session' in body ? renewLink(c, body) : resumeLink(c, body);
  requireMinAge(c, body);
  if (body.session !== undefined) return attemptBySession(c, body, body.session);
  let started: Verification | undefined;
  if (body.clientSecret !== undefined) {
    const resumed = await serverStarted(c, body, body.clientSecret);
    if ('answered' in resumed) return resumed.answered;
    started = resumed.started;
  }
  const asked = checkedRequest(c, body, started);
  const replay = await claimKey(c, asked, text);
  if (replay) return replay;
  return makeLink(c, asked);
});

type LinkBody = z.output<typeof OnboardingLinkRequest>;

/** A first link's request, checked: the partner page asking, the person, and where the hosted flow sends them back. */
interface Asked {
  body: LinkBody;
  partner: Partner;
  /** The partner page's origin. */
  origin: string;
  /** The worker's own origin. */
  own: string;
  /** The verification the partner's server started (the request's `clientSecret`), if any. */
  started: Verification | undefined;
  customerRef: string | undefined;
  phone: ParsedPhone;
  returnUrl: string;
}

/** The next attempt of the verification a session belongs to, with the corrected details. */
async function attemptBySession(c: Context<AppEnv>, body: LinkBody, token: string): Promise<Response> {
  if (body.clientSecret !== undefined) {
    throw validationError([{ issue: 'cannot be combined with session: give one', issueLocation: 'clientSecret' }]);
  }
  const session = await requireSession(c, token);
  const v = await c.var.ports.verifications.execute(session.vid, { type: 'read' });
  if (!sessionOwns(session, v)) throw sessionInvalid();
  return nextAttempt(c, v, body, 'session');
}

/**
 * A verification the partner's server started (`clientSecret`): its reference is the server's, never the page's.
 * Its next attempt and its existing link are answered here; one still without a link gets its first one.
 */
async function serverStarted(
  c: Context<AppEnv>,
  body: LinkBody,
  clientSecret: string,
): Promise<{ started: Verification } | { answered: Response }> {
  if (body.customerRef !== undefined) {
    throw validationError([{ issue: 'cannot be combined with clientSecret: the server set the reference', issueLocation: 'customerRef' }]);
  }
  const started = await clientSecretVerification(c, clientSecret);
  const status = lifecycle(started);
  // The person's next attempt, with the corrected details.
  if (status === 'requires_input') return { answered: await nextAttempt(c, started, body, 'clientSecret') };
  // A link exists already: the same one again (no second vendor link), or a new one once it expired.
  if (status === 'open') return { answered: await resumeLink(c, { clientSecret, lang: body.lang, returnUrl: body.returnUrl }) };
  if (status === 'final') {
    throw new ApiError(409, 'VERIFICATION_ENDED', 'This verification has ended already.', [
      { issue: 'belongs to a verification that has ended', issueLocation: 'clientSecret' },
    ]);
  }
  if (body.sendSMS && !started.server?.sms) {
    throw validationError([{ issue: 'is not offered for this verification (the server did not allow sms)', issueLocation: 'sendSMS' }]);
  }
  return { started };
}

/** The request's own checks, before anything is claimed or spent: the phone, the way to it, and the return page. */
function checkedRequest(c: Context<AppEnv>, body: LinkBody, started: Verification | undefined): Asked {
  const cfg = c.var.config;
  // The configuration guard refused the request unless the worker knows its own origin.
  const own = trustedOwnOrigin(cfg, c.req.url)!;
  const origin = normaliseOrigin(c.req.header('Origin') ?? '')!; // the origin guard let only partner origins through
  const partner = c.get('partner')!;
  const phone = checkedPhone(cfg, body.phone, body.sendSMS === true);

  // Every text costs money and reaches a stranger's phone: with a real vendor a
  // texted link needs the bot check, unless the operator turned that off on
  // purpose (SMS_REQUIRES_TURNSTILE=off; docs/security.md says what it costs).
  if (body.sendSMS && cfg.livemode && !partner.turnstileSecret && cfg.sms.requiresTurnstile) {
    throw new ApiError(400, 'SMS_NOT_ALLOWED', 'Text messages need the bot check (Turnstile) on this site.', [
      { issue: 'needs the bot check (Turnstile) on this site', issueLocation: 'sendSMS' },
    ]);
  }

  // A text the partner's vendor cannot send: 501 naming the vendor and `sms`, before any budget is spent.
  if (body.sendSMS) {
    const first = adapterOf(c, partner, vendorsOf(cfg, partner)[0]!);
    if (!first.capabilities.sms) throw capabilityUnavailable(first.id, 'sms');
  }
  if (body.handoff && body.sendSMS) {
    throw validationError([{ issue: 'cannot be combined with sendSMS: choose one way to the phone', issueLocation: 'handoff' }]);
  }
  const returnUrl = started?.server?.returnUrl ?? body.returnUrl ?? origin;
  if (!isReturnOrigin(own, partner, normaliseOrigin(returnUrl))) {
    throw validationError([{ issue: 'must be a page on an allowed origin', issueLocation: 'returnUrl' }]);
  }
  const customerRef = started ? started.customerRef : body.customerRef;
  return { body, partner, origin, own, started, customerRef, phone, returnUrl };
}

/** The Idempotency-Key's claim: the answer of an earlier request with the same key and body, or none (this request goes on). */
async function claimKey(c: Context<AppEnv>, { partner, origin }: Asked, text: string): Promise<Response | undefined> {
  const key = c.req.header('Idempotency-Key');
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
    throw validationError([{ issue: 'must be 8 to 128 letters, digits or -_:.', issueLocation: 'Idempotency-Key' }]);
  }
  if (!key) return undefined;
  // A key belongs to one partner (and origin): another partner's page reusing it starts afresh.
  // The Turnstile token is left out: it is single-use, so a retry may carry a fresh one.
  return c.var.idempotency.claim(
    `${partner.id} ${origin} ${key}`,
    JSON.stringify({ ...(JSON.parse(text) as object), turnstileToken: undefined }),
  );
}

/**
 * The link: the bot check, the text's and the open verifications' budgets,
 * the vendor's link, the verification stored, the answer. When it fails, the
 * holds it took are given back.
 */
async function makeLink(c: Context<AppEnv>, a: Asked): Promise<Response> {
  const idempotent = c.var.idempotency;
  let held: { id: string; holds: string[] } | undefined;
  let created = false;
  try {
    await botCheck(c, a);
    const verificationId = a.started?.id ?? newVerificationId();
    if (a.body.sendSMS) await spendText(c.env, c.var.ports, a.phone, verificationId);
    // Open verifications per client and per partner; given back when it ends (or its link is never made).
    const holds = await holdOpen(c.env, c.var.ports, verificationId, ipKey(clientIp(c.req.raw.headers)), a.partner.id);
    held = { id: verificationId, holds };
    const secret = (await sessionSecret(c.env, c.var.ports))!; // the misconfiguration guard ran first
    const made = await vendorLink(c, a, verificationId);
    const verification = await stored(c, a, made, holds);
    created = true;
    return await answered(c, a, made, verification, secret);
  } catch (err) {
    if (held && !created) await releaseHolds(c.var.ports.allowances, held.id, held.holds);
    // When the vendor may have acted (a timeout or an unreadable answer), a
    // replay must not ask it again: that could text the person twice.
    if (err instanceof VendorError && (err.fault.kind === 'timeout' || err.fault.kind === 'bad-answer')) idempotent.outcomeUnknown();
    throw isAdapterError(err) ? vendorApiError(err, 'link') : err;
  }
}

/**
 * The bot check, after the idempotency claim: a replay, or a retry of a
 * request that passed the check before a definite failure, needs no second
 * bot check (its token is spent); a failed check frees the key.
 */
async function botCheck(c: Context<AppEnv>, { partner, body, origin }: Asked): Promise<void> {
  const idempotent = c.var.idempotency;
  let botChecked = idempotent.verified;
  if (!botChecked) {
    await verifyTurnstile(
      c.var.config,
      partner.turnstileSecret,
      body.turnstileToken,
      clientIp(c.req.raw.headers),
      new URL(origin).hostname,
    );
    botChecked = Boolean(partner.turnstileSecret);
  }
  if (botChecked) idempotent.botChecked();
}

/** The vendor's link, and what a handed-off or texted link adds to it: the worker's single-use pages and the code. */
interface Made {
  verificationId: string;
  /** The vendor that made the link: the verification's for its whole life. */
  vendor: VendorId;
  link: MadeLink;
  /** What the record may keep of the link's URL (a one-time URL: its origin only, `vendors/hosted-url.ts`). */
  keptUrl: string;
  entityId: string;
  /** When the link was made. */
  now: number;
  handoff: Handoff | undefined;
  /** The worker's single-use URL for the phone (a QR code, a copied link). */
  handoffUrl: string | undefined;
  code: string | undefined;
}

/** The vendor's link for the person (`createLink`), returning to the page or, handed off or texted, to the worker's own. */
async function vendorLink(
  c: Context<AppEnv>,
  { body, own, partner, started, customerRef, phone, returnUrl }: Asked,
  verificationId: string,
): Promise<Made> {
  // A handed-off flow (QR, copied link, or a texted link) ends on the
  // worker's own page, with a single-use secret.
  const returnSecret = body.handoff || body.sendSMS ? randomToken() : undefined;
  const pages = handoffUrls(own, verificationId, body.lang);
  // The partner's first vendor, or on its fault and with failover its next one (vendors/failover.ts).
  const { vendor, link, failover } = await linkWithFailover({
    vendors: vendorsOf(c.var.config, partner),
    failover: failoverOf(c.var.config, partner),
    adapter: (id) => adapterOf(c, partner, id),
    settings: partner,
    now: c.var.clock,
    // Never twice for one Idempotency-Key: whatever the next vendor answers is the key's answer.
    onFailover: () => c.var.idempotency.outcomeUnknown(),
    ask: {
      verificationId,
      requestId: c.get('requestId'),
      customerRef,
      // A returning person's entity (the partner's own, checked by /v1): updated, not made again.
      subject: started?.server?.entityId,
      person: { name: body.name, dateOfBirth: body.dateOfBirth },
      phone,
      handoff: body.sendSMS ? 'sms' : body.handoff ? 'link' : undefined,
      returnTo: returnUrls(returnSecret ? pages.back(returnSecret) : returnUrl),
    },
  });
  if (failover) track(c, { type: 'link.failover', from: failover.from, to: vendor, cause: failover.cause });
  const entityId = link.entityId;
  const kept = keptUrl(adapterOf(c, partner, vendor), link.url);
  const now = c.var.clock();
  const openToken = returnSecret && body.handoff ? randomToken() : undefined;
  const handoffUrl = openToken ? pages.open(openToken) : undefined;
  // A texted link reaches whatever number was typed, and a QR code or a
  // copied link whoever it is forwarded to: the outcome is credited only
  // once the code shown here is entered on the phone's return page.
  const code = returnSecret ? claimCode() : undefined;
  const handoff: Handoff | undefined =
    returnSecret && code && openToken
      ? { kind: 'link', openToken, hostedUrl: kept, returnSecret, code, tries: 0 }
      : returnSecret && code
        ? { kind: 'sms', code, tries: 0, returnSecret, to: await textedTo(c.env, c.var.ports, phone) }
        : undefined;
  return { verificationId, vendor, link, keptUrl: kept, entityId, now, handoff, handoffUrl, code };
}

/** The verification with its link: a new one created, or the server-started one given its link (unless another request did). */
async function stored(
  c: Context<AppEnv>,
  a: Asked,
  { verificationId, vendor, link, keptUrl: keep, entityId, now, handoff }: Made,
  holds: string[],
): Promise<Verification> {
  const { body, started, partner, origin, customerRef } = a;
  const cfg = c.var.config;
  const kept = { url: keep, urlExpiry: link.urlExpiry, status: link.status };
  let verification: Verification;
  if (started) {
    const linked = await c.var.ports.verifications.execute(started.id, {
      type: 'start',
      link: {
        vendor,
        entityId,
        partnerOrigin: origin,
        urlExpiry: link.urlExpiry,
        holds,
        ...(handoff ? { handoff } : {}),
        link: kept,
        ...(body.formKey ? { formKey: body.formKey } : {}),
      },
    });
    // Another request made its link meanwhile (or it was canceled): that one stands, and this one is let go at the vendor.
    if (!linked) {
      await letGoAtVendor(c, partner, vendor, entityId, started.id);
      throw new ApiError(409, 'IDEMPOTENCY_CONFLICT', 'This verification got its link from another request. Please try again.');
    }
    verification = linked;
  } else {
    verification = startedWithLink(
      {
        id: verificationId,
        partnerId: partner.id,
        partnerOrigin: origin,
        // Whoever calls this route chose it (an Origin header is no authentication): `page`.
        ...(customerRef ? { customerRef, customerRefSource: 'page' as const } : {}),
        vendor,
        entityId,
        workerOrigin: a.own,
        livemode: cfg.livemode,
        createdAt: now,
        holds,
        // This device's hosted flow, kept as a server-started one's is, so "Continue the check" gets the same
        // link again (for a vendor whose URL works once, a fresh one) rather than a new one (docs/decisions.md).
        ...(handoff ? { handoff } : { link: { ...kept, returnTo: a.returnUrl } }),
        ...(partner.maxAttempts ? { maxAttempts: partner.maxAttempts } : {}),
        ...(body.formKey ? { formKey: body.formKey } : {}),
      },
      link.urlExpiry,
      now,
      cfg.outcomes.lifecycle,
    );
    // The answer needs the record, not the list's row: the row is written just after it (docs/decisions.md).
    await c.var.ports.verifications.execute(verification.id, { type: 'create', verification, listed: 'after-answer' });
  }
  return verification;
}

/** The answer: the link (or, handed off, the worker's page for the phone; texted, none), the code, the session. */
async function answered(c: Context<AppEnv>, a: Asked, made: Made, verification: Verification, secret: string): Promise<Response> {
  const { body, partner, origin } = a;
  const { link, entityId, now, handoffUrl, code } = made;
  const answer: OnboardingLinkAnswer = {
    // Handed off: the phone gets the worker's single-use URL, never the
    // vendor's; texted: this device gets no URL at all, only the code.
    ...(body.sendSMS ? {} : { url: handoffUrl ?? link.url }),
    ...(code ? { claimCode: code } : {}),
    urlExpiry: shownLinkExpiry(link.urlExpiry, verification.linkExpiresAt),
    status: link.status,
    // A link on this device comes back to the page with the vendor's return parameters: their names.
    ...(body.sendSMS || handoffUrl ? {} : returnKeysOf(made.vendor)),
    smsSent: body.sendSMS === true,
    session: await createSession(secret, { entityId, verificationId: verification.id, origin, partnerId: partner.id }, now),
    verificationId: verification.id,
    ...(handoffUrl ? { qr: qrModules(handoffUrl) } : {}),
  };
  const json = JSON.stringify(answer);
  track(c, { type: 'link.created', channel: body.sendSMS ? 'sms' : body.handoff ? 'handoff' : 'redirect', vendor: made.vendor });
  return c.body(json, 200, { 'Content-Type': 'application/json' });
}
