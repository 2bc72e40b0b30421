/**
 * Origins as the worker compares them: serialised (scheme://host[:port]).
 * Which origin is which partner's lives in partners/resolve.ts; a return URL
 * may point to its partner's origins or to the worker's own origin (its
 * handoff pages).
 */
import { list, type Env } from './env';
import type { Partner } from '../partners/partner';

export function normaliseOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** The worker's own origin: PUBLIC_ORIGIN, or the origin the request reached. */
export function ownOrigin(env: Env, requestUrl: string): string {
  return (env.PUBLIC_ORIGIN && normaliseOrigin(env.PUBLIC_ORIGIN.trim())) || new URL(requestUrl).origin;
}

/** ALLOWED_ORIGINS parsed once per value (every /api request asks). */
let parsed: { raw: string | undefined; origins: string[] } | undefined;

export function configuredOrigins(env: Env): string[] {
  if (!parsed || parsed.raw !== env.ALLOWED_ORIGINS) {
    const origins = list(env.ALLOWED_ORIGINS)
      .map((o) => normaliseOrigin(o))
      .filter((o): o is string => o !== undefined);
    parsed = { raw: env.ALLOWED_ORIGINS, origins };
  }
  return parsed.origins;
}

/** Whether a redirect may go to `origin` for this partner: its own origins, or the worker's. */
export function isReturnOrigin(env: Env, requestUrl: string, partner: Partner, origin: string | undefined): boolean {
  return origin !== undefined && (partner.origins.includes(origin) || origin === ownOrigin(env, requestUrl));
}
