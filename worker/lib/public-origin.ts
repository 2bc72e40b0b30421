/**
 * The worker's own public origin: `PUBLIC_ORIGIN` when set (the `iss` of
 * result tokens, the origin of handoff pages, the origin alarms and queue
 * consumers use, which have no request to take one from). Unset, the
 * request's origin stands in, but only on loopback hosts: off loopback the
 * `Host` header is whatever the client wrote.
 */
import type { Env } from './env';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

/** `PUBLIC_ORIGIN` normalised, or undefined when unset or not an http(s) origin. */
export function configuredPublicOrigin(env: Env): string | undefined {
  const raw = env.PUBLIC_ORIGIN?.trim();
  if (!raw) return undefined;
  try {
    const u = new URL(raw);
    return /^https?:$/.test(u.protocol) ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The worker's own origin for this request, or undefined when it cannot be known safely. */
export function publicOrigin(env: Env, requestUrl: string): string | undefined {
  const configured = configuredPublicOrigin(env);
  if (configured) return configured;
  const u = new URL(requestUrl);
  return isLoopbackHost(u.hostname) ? u.origin : undefined;
}

/**
 * Whether this worker runs deployed: a configured PUBLIC_ORIGIN, or the
 * request's host, that is not a loopback host. A deployed worker may use the
 * sandbox only with DEMO=on set explicitly.
 */
export function isDeployed(env: Env, requestUrl: string): boolean {
  const configured = configuredPublicOrigin(env);
  if (configured && !isLoopbackHost(new URL(configured).hostname)) return true;
  return !isLoopbackHost(new URL(requestUrl).hostname);
}
