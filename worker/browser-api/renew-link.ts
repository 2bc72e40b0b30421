/**
 * `POST /api/onboarding-link` with a `session` instead of the person's
 * details (docs/handoff.md "Cross-device handoff"): a new link for a verification
 * whose link expired, for the same vendor entity (`entity: {entityId}`) and
 * the same verificationId, the same way it went before (this device, or a QR
 * code / copied link). Never a text message: a texted link goes again only
 * when the person asks, with the details they typed.
 */
import type { Context } from 'hono';
import type * as z from 'zod/mini';
import type { OnboardingLinkAnswer, RenewLinkRequest } from '../contract';
import type { AppEnv } from '../lib/env';
import { ApiError, validationError } from '../lib/errors';
import { clientIp } from '../lib/limits';
import { MAX_RENEWALS, type Renewal } from '../verifications/verification';
import { renewable, shownLinkExpiry } from '../verifications/lifecycle';
import { verifications } from '../verifications/verification-store';
import { isReturnOrigin, normaliseOrigin } from '../lib/origins';
import { trustedOwnOrigin } from '../config';
import { qrModules } from '../handoff/qr';
import { randomToken } from '../lib/random';
import { createSession, requireSession, sessionInvalid, sessionOwns, sessionSecret } from './session';
import { verifyTurnstile } from '../lib/turnstile';
import { VendorError } from '../vendor-api/client';
import { vendorFault, vendorMismatch } from '../vendor-api/errors';
import { vendorFor } from '../vendor-api/from-env';
import { handoffUrls, redirectUrl } from '../handoff/urls';

const ended = (issue: string) =>
  new ApiError(409, 'VERIFICATION_ENDED', 'This verification can no longer get a new link. Please start again.', [
    { issue, issueLocation: 'session' },
  ]);

export async function renewLink(c: Context<AppEnv>, body: z.output<typeof RenewLinkRequest>) {
  const env = c.env;
  const partner = c.get('partner')!;
  const session = await requireSession(c, body.session);
  const store = verifications(env);
  const v = await store.read(session.vid);
  if (!sessionOwns(session, v)) throw sessionInvalid();
  const allowed = renewable(v);
  if (allowed === 'ended') throw ended('belongs to a verification that has ended');
  if (allowed === 'renewals') throw ended(`has had its ${MAX_RENEWALS} new links`);
  const h = v.handoff;
  if (h?.kind === 'sms') {
    throw new ApiError(409, 'RENEWAL_NOT_ALLOWED', 'A texted link is sent again only when the person asks (Send again).', [
      { issue: 'belongs to a texted link: send it again with the details', issueLocation: 'session' },
    ]);
  }
  // The configuration guard refused the request unless the worker knows its own origin.
  const own = trustedOwnOrigin(c.var.config, c.req.url)!;
  const pages = handoffUrls(own, v.id, body.lang);
  let returnTo: string;
  let returnSecret: string | undefined;
  if (h) {
    // A spent return secret (a phone already came back) is replaced.
    returnSecret = h.browserKey ? randomToken() : h.returnSecret;
    returnTo = pages.back(returnSecret);
  } else {
    returnTo = v.server?.returnUrl ?? body.returnUrl ?? v.partnerOrigin;
    if (!isReturnOrigin(own, partner, normaliseOrigin(returnTo))) {
      throw validationError([{ issue: 'must be a page on an allowed origin', issueLocation: 'returnUrl' }]);
    }
  }
  await verifyTurnstile(env, partner.turnstileSecret, body.turnstileToken, clientIp(c.req.raw.headers), new URL(v.partnerOrigin).hostname);

  let link;
  try {
    link = await vendorFor(c, partner).onboardingUrl({
      applicationRef: c.get('requestId'),
      consent: true,
      ...(v.customerRef ? { customerRef: v.customerRef } : {}),
      // The entity the first link created: nothing personal travels again.
      entity: { entityId: v.entityId },
      ...(partner.flowId ? { flowId: partner.flowId } : {}),
      sendSMS: false,
      successRedirectURL: redirectUrl(returnTo, 'success'),
      errorRedirectURL: redirectUrl(returnTo, 'error'),
    });
  } catch (err) {
    throw err instanceof VendorError ? vendorFault(err, 'link') : err;
  }
  if (link.entity.entityId !== undefined && link.entity.entityId !== v.entityId) {
    throw vendorMismatch();
  }
  const now = Date.now();
  const openToken = h ? randomToken() : undefined;
  const renewal: Renewal = {
    urlExpiry: link.urlExpiry,
    ...(openToken && returnSecret ? { link: { openToken, hostedUrl: link.url, returnSecret } } : {}),
    // A server-started verification keeps its link, so a resume answers the new one.
    ...(v.link && !h ? { sameDevice: { url: link.url, urlExpiry: link.urlExpiry, status: link.status } } : {}),
  };
  const after = await store.renew(v.id, renewal);
  if (!after) throw ended('belongs to a verification that has ended');
  const handoffUrl = openToken ? pages.open(openToken) : undefined;
  const answer: OnboardingLinkAnswer = {
    url: handoffUrl ?? link.url,
    // The same code as before: the first device keeps showing it.
    ...(h?.code ? { claimCode: h.code } : {}),
    urlExpiry: shownLinkExpiry(link.urlExpiry, after.linkExpiresAt),
    status: link.status,
    smsSent: false,
    session: await createSession(
      (await sessionSecret(env))!,
      { entityId: v.entityId, verificationId: v.id, origin: v.partnerOrigin, partnerId: partner.id },
      now,
    ),
    verificationId: v.id,
    ...(handoffUrl ? { qr: qrModules(handoffUrl) } : {}),
  };
  return c.json(answer);
}
