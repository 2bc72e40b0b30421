/**
 * Optional Cloudflare Turnstile check before a link is made: on when
 * TURNSTILE_SECRET_KEY is set. The token is verified server-side; the verify
 * URL is configurable so tests can use a local fake.
 */
import { timeoutMs, type Env } from './env';
import { ApiError } from './errors';

export const DEFAULT_TURNSTILE_VERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';

export async function verifyTurnstile(env: Env, token: string | undefined, ip: string): Promise<void> {
  const secret = env.TURNSTILE_SECRET_KEY?.trim();
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
  let ok = false;
  try {
    const res = await fetch(env.TURNSTILE_VERIFY_URL || DEFAULT_TURNSTILE_VERIFY_URL, {
      method: 'POST',
      body: form,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs(env)),
    });
    // Only a readable verdict from siteverify can refuse the person; a
    // siteverify that is down or answers garbage is our problem (502).
    const data = (await res.json()) as { success?: unknown };
    if (res.status >= 500 || !data || typeof data !== 'object' || typeof data.success !== 'boolean') throw new Error('no verdict');
    ok = res.ok && data.success === true;
  } catch {
    throw new ApiError(502, 'VENDOR_ERROR', 'The bot check could not be verified. Please try again.');
  }
  if (!ok) throw new ApiError(403, 'TURNSTILE_FAILED', 'The bot check failed. Please try again.');
}
