/**
 * POST /api/onboarding-link — docs/api.md "Browser-facing API". With a `session` and no details: a new link
 * (`renew-link.ts`); with a `session` and the details: the next attempt (`next-attempt.ts`).
 */
import { Hono } from 'hono/tiny';
import { createMiddleware } from 'hono/factory';
import { OnboardingLinkRequest, RenewLinkRequest, ResumeLinkRequest, type OnboardingLinkAnswer } from '../contract';
import type { AppEnv } from '../app-env';
import { holdOpen, releaseHolds } from '../lib/allowances';
import { ApiError, validationError } from '../lib/errors';
import { idempotency } from '../middleware/idempotency';
import { clientIp, ipKey } from '../lib/limits';
import { isReturnOrigin, normaliseOrigin } from '../lib/origins';
import { trustedOwnOrigin } from '../config';
import { checkedPhone, spendText } from './phone-check';
import { createSession, requireSession, sessionInvalid, sessionOwns } from './session';
import { sessionSecret } from '../lib/session-secret';
import { nextAttempt } from './next-attempt';
import { verifyTurnstile } from '../lib/turnstile';
import { VendorError } from '../vendor-api/client';
import { vendorFault } from '../vendor-api/errors';
import { vendorFor } from '../vendor-api/from-env';
import { readJson } from '../lib/validation';
import { requireMinAge } from '../lib/min-age';
import { claimCode, newVerificationId, type Handoff, type Verification } from '../verifications/verification';
import { lifecycle, shownLinkExpiry, startedWithLink } from '../verifications/lifecycle';
import { randomToken } from '../lib/random';
import { qrModules } from '../handoff/qr';
import { handoffUrls, redirectUrl } from '../handoff/urls';
import { renewLink } from './renew-link';
import { resumeLink } from './resume-link';
import { clientSecretVerification } from './client-secret';
import { track } from '../ops/track';

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
  const env = c.env;
  const cfg = c.var.config;
  // The configuration guard refused the request unless the worker knows its own origin.
  const own = trustedOwnOrigin(cfg, c.req.url)!;
  const { data, text } = await readJson(c, (b) =>
    // The person's details make it a link request (a first link, or a next attempt); without them, a renewal or a resume.
    'name' in b
      ? OnboardingLinkRequest
      : 'session' in b
        ? RenewLinkRequest
        : 'clientSecret' in b
          ? ResumeLinkRequest
          : OnboardingLinkRequest,
  );
  if (!('name' in data)) return 'session' in data ? renewLink(c, data) : resumeLink(c, data);
  const body = data;
  requireMinAge(c, body);
  if (body.session !== undefined) {
    if (body.clientSecret !== undefined) {
      throw validationError([{ issue: 'cannot be combined with session: give one', issueLocation: 'clientSecret' }]);
    }
    const session = await requireSession(c, body.session);
    const v = await c.var.ports.verifications.read(session.vid);
    if (!sessionOwns(session, v)) throw sessionInvalid();
    return nextAttempt(c, v, body, 'session');
  }
  const origin = normaliseOrigin(c.req.header('Origin') ?? '')!; // the origin guard let only partner origins through
  const partner = c.get('partner')!;

  // A verification the partner's server started: its reference is the server's, never the page's.
  let started: Verification | undefined;
  if (body.clientSecret !== undefined) {
    if (body.customerRef !== undefined) {
      throw validationError([
        { issue: 'cannot be combined with clientSecret: the server set the reference', issueLocation: 'customerRef' },
      ]);
    }
    started = await clientSecretVerification(c, body.clientSecret);
    const status = lifecycle(started);
    // The person's next attempt, with the corrected details.
    if (status === 'requires_input') return nextAttempt(c, started, body, 'clientSecret');
    // A link exists already: the same one again (no second vendor link), or a new one once it expired.
    if (status === 'open') return resumeLink(c, { clientSecret: body.clientSecret, lang: body.lang, returnUrl: body.returnUrl });
    if (status === 'final') {
      throw new ApiError(409, 'VERIFICATION_ENDED', 'This verification has ended already.', [
        { issue: 'belongs to a verification that has ended', issueLocation: 'clientSecret' },
      ]);
    }
    if (body.sendSMS && !started.server?.sms) {
      throw validationError([{ issue: 'is not offered for this verification (the server did not allow sms)', issueLocation: 'sendSMS' }]);
    }
  }
  const customerRef = started ? started.customerRef : body.customerRef;

  const phone = checkedPhone(cfg, body.phone, body.sendSMS === true);

  // Every text costs money and reaches a stranger's phone: with a real vendor a
  // texted link needs the bot check, unless the operator turned that off on
  // purpose (SMS_REQUIRES_TURNSTILE=off; docs/security.md says what it costs).
  if (body.sendSMS && cfg.livemode && !partner.turnstileSecret && cfg.sms.requiresTurnstile) {
    throw new ApiError(400, 'SMS_NOT_ALLOWED', 'Text messages need the bot check (Turnstile) on this site.', [
      { issue: 'needs the bot check (Turnstile) on this site', issueLocation: 'sendSMS' },
    ]);
  }

  if (body.handoff && body.sendSMS) {
    throw validationError([{ issue: 'cannot be combined with sendSMS: choose one way to the phone', issueLocation: 'handoff' }]);
  }
  const returnUrl = started?.server?.returnUrl ?? body.returnUrl ?? origin;
  const returnOrigin = normaliseOrigin(returnUrl);
  if (!isReturnOrigin(own, partner, returnOrigin)) {
    throw validationError([{ issue: 'must be a page on an allowed origin', issueLocation: 'returnUrl' }]);
  }

  const key = c.req.header('Idempotency-Key');
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
    throw validationError([{ issue: 'must be 8 to 128 letters, digits or -_:.', issueLocation: 'Idempotency-Key' }]);
  }
  const idempotent = c.var.idempotency;
  if (key) {
    // A key belongs to one partner (and origin): another partner's page reusing it starts afresh.
    // The Turnstile token is left out: it is single-use, so a retry may carry a fresh one.
    const replay = await idempotent.claim(
      `${partner.id} ${origin} ${key}`,
      JSON.stringify({ ...(JSON.parse(text) as object), turnstileToken: undefined }),
    );
    if (replay) return replay;
  }
  let botChecked = idempotent.verified;

  let holds: string[] | undefined;
  let holdId = '';
  let created = false;
  try {
    // After the idempotency claim: a replay, or a retry of a request that
    // passed the check before a definite failure, needs no second bot check
    // (its token is spent); a failed check frees the key.
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
    const verificationId = started?.id ?? newVerificationId();
    if (body.sendSMS) await spendText(env, c.var.ports, phone, verificationId);
    // Open verifications per client and per partner; given back when it ends (or its link is never made).
    holdId = verificationId;
    holds = await holdOpen(env, c.var.ports, verificationId, ipKey(clientIp(c.req.raw.headers)), partner.id);
    const secret = (await sessionSecret(env, c.var.ports))!; // the misconfiguration guard ran first
    const name = body.name;
    // A handed-off flow (QR, copied link, or a texted link) ends on the
    // worker's own page, with a single-use secret.
    const returnSecret = body.handoff || body.sendSMS ? randomToken() : undefined;
    const pages = handoffUrls(own, verificationId, body.lang);
    const returnTo = returnSecret ? pages.back(returnSecret) : returnUrl;
    const link = await vendorFor(c, partner).onboardingUrl({
      applicationRef: c.get('requestId'),
      consent: true,
      ...(customerRef ? { customerRef } : {}),
      entity: {
        // A returning person's entity (the partner's own, checked by /v1): updated, not made again.
        ...(started?.server?.entityId !== undefined ? { entityId: started.server.entityId } : {}),
        entityType: 'INDIVIDUAL',
        name: {
          ...(name.givenName ? { givenName: name.givenName } : {}),
          ...(name.middleName ? { middleName: name.middleName } : {}),
          familyName: name.familyName,
        },
        dateOfBirth: { dateOfBirth: body.dateOfBirth },
      },
      ...(partner.flowId ? { flowId: partner.flowId } : {}),
      sendSMS: body.sendSMS === true,
      phoneCode: phone.code,
      phoneNumber: phone.national,
      ...(body.sendSMS
        ? {
            ...(partner.smsSenderName ? { senderName: partner.smsSenderName } : {}),
            ...(partner.smsTemplateId ? { messageTemplateId: partner.smsTemplateId } : {}),
          }
        : {}),
      successRedirectURL: redirectUrl(returnTo, 'success'),
      errorRedirectURL: redirectUrl(returnTo, 'error'),
    });
    const entityId = link.entity.entityId;
    if (!entityId) throw new VendorError({ kind: 'bad-answer', status: 200 });
    const now = c.var.clock();
    const openToken = returnSecret && body.handoff ? randomToken() : undefined;
    const handoffUrl = openToken ? pages.open(openToken) : undefined;
    // A texted link reaches whatever number was typed, and a QR code or a
    // copied link whoever it is forwarded to: the outcome is credited only
    // once the code shown here is entered on the phone's return page.
    const code = returnSecret ? claimCode() : undefined;
    const handoff: Handoff | undefined =
      returnSecret && code && openToken
        ? { kind: 'link', openToken, hostedUrl: link.url, returnSecret, code, tries: 0 }
        : returnSecret && code
          ? { kind: 'sms', code, tries: 0, returnSecret }
          : undefined;
    const kept = { url: link.url, urlExpiry: link.urlExpiry, status: link.status };
    let verification: Verification;
    if (started) {
      const linked = await c.var.ports.verifications.startLink(started.id, {
        entityId,
        partnerOrigin: origin,
        urlExpiry: link.urlExpiry,
        holds,
        ...(handoff ? { handoff } : {}),
        link: kept,
        ...(body.formKey ? { formKey: body.formKey } : {}),
      });
      // Another request made its link meanwhile (or it was canceled): that one stands.
      if (!linked)
        throw new ApiError(409, 'IDEMPOTENCY_CONFLICT', 'This verification got its link from another request. Please try again.');
      verification = linked;
    } else {
      verification = startedWithLink(
        {
          id: verificationId,
          partnerId: partner.id,
          partnerOrigin: origin,
          // Whoever calls this route chose it (an Origin header is no authentication): `page`.
          ...(customerRef ? { customerRef, customerRefSource: 'page' as const } : {}),
          entityId,
          workerOrigin: own,
          livemode: cfg.livemode,
          createdAt: now,
          holds,
          ...(handoff ? { handoff } : {}),
          ...(partner.maxAttempts ? { maxAttempts: partner.maxAttempts } : {}),
          ...(body.formKey ? { formKey: body.formKey } : {}),
        },
        link.urlExpiry,
        now,
        cfg.outcomes.lifecycle,
      );
      await c.var.ports.verifications.create(verification);
    }
    created = true;
    const answer: OnboardingLinkAnswer = {
      // Handed off: the phone gets the worker's single-use URL, never the
      // vendor's; texted: this device gets no URL at all, only the code.
      ...(body.sendSMS ? {} : { url: handoffUrl ?? link.url }),
      ...(code ? { claimCode: code } : {}),
      urlExpiry: shownLinkExpiry(link.urlExpiry, verification.linkExpiresAt),
      status: link.status,
      smsSent: body.sendSMS === true,
      session: await createSession(secret, { entityId, verificationId: verification.id, origin, partnerId: partner.id }, now),
      verificationId: verification.id,
      ...(handoffUrl ? { qr: qrModules(handoffUrl) } : {}),
    };
    const json = JSON.stringify(answer);
    track(c, { type: 'link.created', channel: body.sendSMS ? 'sms' : body.handoff ? 'handoff' : 'redirect' });
    return c.body(json, 200, { 'Content-Type': 'application/json' });
  } catch (err) {
    if (holds && !created) await releaseHolds(c.var.ports.allowances, holdId, holds);
    // When the vendor may have acted (a timeout or an unreadable answer), a
    // replay must not ask it again: that could text the person twice.
    if (err instanceof VendorError && (err.fault.kind === 'timeout' || err.fault.kind === 'bad-answer')) idempotent.outcomeUnknown();
    throw err instanceof VendorError ? vendorFault(err, 'link') : err;
  }
});
