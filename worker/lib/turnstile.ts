/**
 * Optional Cloudflare Turnstile check before a link is made: on for a partner
 * with a Turnstile secret (its own, or TURNSTILE_SECRET_KEY). The token is
 * verified server-side, and siteverify's `hostname` must be the host of the
 * page's Origin: the Origin header is not authentication (any script can
 * claim it), a token solved on the partner's real page is. The verify URL is
 * configurable so tests can use a local fake.
 */
import type { Config } from '../config';
import { ApiError } from './errors';

/**
 * The action the widget renders its challenge with: a token solved for
 * another action (another form of the partner's site, e.g. its login) does
 * not buy a link or a text message.
 */
export const TURNSTILE_ACTION = 'kyc-onboarding-link';

export async function verifyTurnstile(
  cfg: Pick<Config, 'turnstileVerifyUrl' | 'vendor'>,
  secret: string | undefined,
  token: string | undefined,
  ip: string,
  hostname: string,
): Promise<void> {
  if (!secret) return;
  if (!token) {
    throw new ApiError(400, 'VALIDATION_FAILED', 'Please complete the bot check.', [
      { issue: 'is required', issueLocation: 'turnstileToken' },
    ]);
  }
  const form = new FormData();
  form.set('secret', secret);
  form.set('response', token);
  if (ip !== 'unknown') form.set('remoteip', ip);
  let ok: boolean;
  try {
    const res = await fetch(cfg.turnstileVerifyUrl, {
      method: 'POST',
      body: form,
      redirect: 'manual',
      signal: AbortSignal.timeout(cfg.vendor.timeoutMs),
    });
    // Only a readable verdict from siteverify can refuse the person; a
    // siteverify that is down or answers garbage is our problem (502).
    const data: { success?: unknown; hostname?: unknown; action?: unknown } | null = await res.json();
    if (res.status >= 500 || typeof data !== 'object' || data === null || typeof data.success !== 'boolean') throw new Error('no verdict');
    // A token solved on another site (one claiming this partner's Origin), or
    // for another action of the partner's site, is refused.
    ok =
      res.ok &&
      data.success &&
      typeof data.hostname === 'string' &&
      data.hostname.toLowerCase() === hostname.toLowerCase() &&
      data.action === TURNSTILE_ACTION;
  } catch {
    throw new ApiError(502, 'VENDOR_ERROR', 'The bot check could not be verified. Please try again.');
  }
  if (!ok) throw new ApiError(403, 'TURNSTILE_FAILED', 'The bot check failed. Please try again.');
}
