/**
 * Origins as the worker compares them: serialised (scheme://host[:port]).
 * Which origin is which partner's lives in partners/resolve.ts; a return URL
 * may point to its partner's origins or to the worker's own origin (its
 * handoff pages). The worker's own origin, and the rule for trusting it, is
 * `trustedOwnOrigin` (config.ts).
 */
import type { Partner } from '../partners/partner';
import { httpUrl } from '../../rules/http-url';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

/** `value` as a serialised http(s) origin, or undefined. */
export function normaliseOrigin(value: string): string | undefined {
  return httpUrl(value)?.origin;
}

/** Whether a redirect may go to `origin` for this partner: its own origins, or the worker's (`own`). */
export function isReturnOrigin(own: string | undefined, partner: Partner, origin: string | undefined): boolean {
  return origin !== undefined && (partner.origins.includes(origin) || origin === own);
}
