/**
 * Rate limits with the Workers rate-limiting binding, which counts in fixed
 * windows aligned to the clock: per client IP on every /api route (RL_IP), and
 * per destination phone number for SMS (RL_SMS). Without a binding (node
 * tests, or a deployment that removed it) nothing is limited.
 */
import type { RateLimit } from '@cloudflare/workers-types';
import { ApiError } from './errors';

/** Both bindings use 60-second windows (wrangler.toml). */
const PERIOD_SECONDS = 60;

export function clientIp(headers: Headers): string {
  return headers.get('CF-Connecting-IP')?.trim() || 'unknown';
}

export async function enforce(binding: RateLimit | undefined, key: string, what: string): Promise<void> {
  if (!binding) return;
  const { success } = await binding.limit({ key });
  if (success) return;
  const retryAfter = Math.max(1, PERIOD_SECONDS - (Math.floor(Date.now() / 1000) % PERIOD_SECONDS));
  throw new ApiError(429, 'RATE_LIMITED', `Too many ${what}. Please wait a moment and try again.`, [], {
    'Retry-After': String(retryAfter),
  });
}
