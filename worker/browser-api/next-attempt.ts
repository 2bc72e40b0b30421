/**
 * The person's next attempt (docs/handoff.md "Attempts"): `POST
 * /api/onboarding-link` with the corrected details and the previous answer's
 * `session` (or the client secret) while the verification is
 * `requires_input`. The lifecycle's attempt transition, and a new vendor
 * link for the same entity with the corrected details, the same
 * verificationId, the same way to the phone and the same code.
 */
import type { Context } from 'hono';
import type * as z from 'zod/mini';
import type { OnboardingLinkRequest } from '../contract';
import type { AppEnv } from '../app-env';
import { ApiError, validationError } from '../lib/errors';
import { hasLink, lifecycle } from '../verifications/lifecycle';
import type { Verification } from '../verifications/verification';
import { checkedPhone } from './phone-check';
import { relink } from './renew-link';

export async function nextAttempt(
  c: Context<AppEnv>,
  v: Verification,
  body: z.output<typeof OnboardingLinkRequest>,
  by: 'session' | 'clientSecret',
) {
  if (lifecycle(v) !== 'requires_input' || !hasLink(v)) {
    throw new ApiError(409, 'ATTEMPT_NOT_ALLOWED', 'This verification is not waiting for a new attempt.', [
      { issue: `belongs to a verification that is ${lifecycle(v)}, not requires_input`, issueLocation: by },
    ]);
  }
  if (by === 'session' && body.customerRef !== undefined) {
    throw validationError([{ issue: 'cannot be combined with session: the verification has its reference', issueLocation: 'customerRef' }]);
  }
  // The way to the phone stays the verification's; only the details change.
  const texted = v.handoff?.kind === 'sms';
  const phone = checkedPhone(c.var.config, body.phone, texted);
  return relink(c, v, {
    lang: body.lang,
    returnUrl: body.returnUrl,
    turnstileToken: body.turnstileToken,
    details: { name: body.name, dateOfBirth: body.dateOfBirth },
    by,
    phone,
    ...(body.formKey ? { formKey: body.formKey } : {}),
  });
}
