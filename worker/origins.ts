/**
 * Which origins may call /api and receive redirects: ALLOWED_ORIGINS plus the
 * worker's own origin (DESIGN.md). Origins are compared in their serialised
 * form (scheme://host[:port]).
 */
import { list, type Env } from './env';

export function normaliseOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** ALLOWED_ORIGINS parsed once per value (every /api request asks up to three times). */
let parsed: { raw: string | undefined; origins: string[] } | undefined;

function configuredOrigins(env: Env): string[] {
  if (!parsed || parsed.raw !== env.ALLOWED_ORIGINS) {
    const origins = list(env.ALLOWED_ORIGINS)
      .map((o) => normaliseOrigin(o))
      .filter((o): o is string => o !== undefined);
    parsed = { raw: env.ALLOWED_ORIGINS, origins };
  }
  return parsed.origins;
}

export function allowedOrigins(env: Env, requestUrl: string): Set<string> {
  return new Set([new URL(requestUrl).origin, ...configuredOrigins(env)]);
}

export function isAllowedOrigin(env: Env, requestUrl: string, origin: string | undefined | null): boolean {
  if (!origin) return false;
  const n = normaliseOrigin(origin);
  return n !== undefined && allowedOrigins(env, requestUrl).has(n);
}
