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

export function allowedOrigins(env: Env, requestUrl: string): Set<string> {
  const set = new Set<string>([new URL(requestUrl).origin]);
  for (const o of list(env.ALLOWED_ORIGINS)) {
    const n = normaliseOrigin(o);
    if (n) set.add(n);
  }
  return set;
}

export function isAllowedOrigin(env: Env, requestUrl: string, origin: string | undefined | null): boolean {
  if (!origin) return false;
  const n = normaliseOrigin(origin);
  return n !== undefined && allowedOrigins(env, requestUrl).has(n);
}
