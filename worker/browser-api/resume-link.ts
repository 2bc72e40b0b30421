/**
 * `POST /api/onboarding-link` with a client secret whose verification has a
 * link already (docs/server-api.md "The partner's server API": resume): the same link
 * again while it is valid, with no second vendor call; once it has expired, a
 * new one for the same entity (`renew-link.ts`). The way it went stays: this
 * device (the hosted flow's URL), a QR code or copied link (the worker's
 * handoff URL, with its code), or a texted link (its code only: this device never
 * gets the hosted URL).
 */
import type { Context } from 'hono';
import type * as z from 'zod/mini';
import type { OnboardingLinkAnswer, ResumeLinkRequest } from '../contract';
import { returnKeysOf } from '../vendors/return-params';
import { vendorOf } from '../verifications/verification';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';
import { qrModules } from '../handoff/qr';
import { handoffUrls } from '../handoff/urls';
import { lifecycle, needsNewLink } from '../verifications/lifecycle';
import { normaliseOrigin } from '../lib/origins';
import { trustedOwnOrigin } from '../config';
import { createSession } from './session';
import { sessionSecret } from '../lib/session-secret';
import { clientSecretVerification } from './client-secret';
import { freshUrl, renewLink } from './renew-link';

export async function resumeLink(c: Context<AppEnv>, body: z.output<typeof ResumeLinkRequest>) {
  const env = c.env;
  const v = await clientSecretVerification(c, body.clientSecret);
  const status = lifecycle(v);
  if (status === 'created' || v.entityId === undefined) {
    throw new ApiError(400, 'VALIDATION_FAILED', 'This verification has no link yet: send the person’s details with the client secret.', [
      { issue: 'needs the person’s details for its first link', issueLocation: 'name' },
    ]);
  }
  if (status === 'final') {
    throw new ApiError(409, 'VERIFICATION_ENDED', 'This verification has ended already.', [
      { issue: 'belongs to a verification that has ended', issueLocation: 'clientSecret' },
    ]);
  }
  // The session answers to this page's origin (one of the partner's: the partner guard resolved it).
  const origin = normaliseOrigin(c.req.header('Origin') ?? '')!;
  const now = c.var.clock();
  const session = await createSession(
    (await sessionSecret(env, c.var.ports))!,
    { entityId: v.entityId, verificationId: v.id, origin, partnerId: v.partnerId },
    now,
  );
  // Expired, or the person's next attempt: a new link for the same entity and verification, the way it went before.
  const renew = () => renewLink(c, { session, lang: body.lang, returnUrl: body.returnUrl, turnstileToken: body.turnstileToken });
  if (needsNewLink(v, now)) return renew();
  const h = v.handoff;
  // This device's hosted flow: the kept link, or a vendor's one-time URL asked for now (none: its session moved on).
  const url = h ? undefined : await freshUrl(c, v, v.link!.url);
  if (!h && url === undefined) return renew();
  const urlExpiry = v.link?.urlExpiry ?? new Date(v.linkExpiresAt).toISOString();
  const handoffUrl =
    h?.kind === 'link' ? handoffUrls(trustedOwnOrigin(c.var.config, c.req.url)!, v.id, body.lang).open(h.openToken) : undefined;
  const answer: OnboardingLinkAnswer = {
    ...(h?.kind === 'sms' ? {} : { url: handoffUrl ?? url! }),
    // Every handed-off link is credited only with its code: a new tab needs it as much as the first one did.
    ...(h?.code !== undefined ? { claimCode: h.code } : {}),
    urlExpiry,
    status: v.link?.status ?? 'OK',
    ...(h ? {} : returnKeysOf(vendorOf(v))),
    smsSent: h?.kind === 'sms',
    session,
    verificationId: v.id,
    ...(handoffUrl ? { qr: qrModules(handoffUrl) } : {}),
  };
  return c.json(answer);
}
