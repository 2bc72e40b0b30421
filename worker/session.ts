/**
 * The session token that binds a result lookup to the link it came from: an
 * HS256 JWT (hono/jwt) holding the vendor entityId, the origin and the partner
 * that created it, and an expiry. Nothing personal goes in it. With the sandbox as the vendor
 * and no SESSION_SECRET, a development key is derived; with a real vendor and
 * no secret, /api refuses to run (500 MISCONFIGURED).
 */
import { sign, verify } from 'hono/jwt';
import { usesSandbox, type Env } from './env';
import { ENVIRONMENT_PARTNER_ID } from './partners/partner';

/** Long enough to finish the hosted flow (its link lives 30 minutes) and poll. */
export const SESSION_TTL_SECONDS = 60 * 60;

export interface Session {
  /** Vendor entity id. */
  sub: string;
  /** Origin that asked for the link; /api/result must come from it. */
  org: string;
  /** The partner it was made for; /api/result must resolve to the same one. */
  pid: string;
  iat: number;
  exp: number;
}

const DEV_SECRET = 'kyc-onboard sandbox development session key (not for production)';

export function sessionSecret(env: Env): string | undefined {
  const s = env.SESSION_SECRET?.trim();
  if (s) return s;
  return usesSandbox(env) ? DEV_SECRET : undefined;
}

export async function createSession(secret: string, entityId: string, origin: string, partnerId: string, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  const payload: Session = { sub: entityId, org: origin, pid: partnerId, iat, exp: iat + SESSION_TTL_SECONDS };
  return sign({ ...payload }, secret, 'HS256');
}

/** The session, or undefined when missing, malformed, tampered or expired. */
export async function readSession(secret: string, token: string): Promise<Session | undefined> {
  try {
    const p = await verify(token, secret, 'HS256');
    if (typeof p.sub !== 'string' || typeof p.org !== 'string' || typeof p.exp !== 'number') return undefined;
    if (p.pid !== undefined && typeof p.pid !== 'string') return undefined;
    // Sessions made before partners existed were all the environment's.
    return { ...(p as unknown as Session), pid: (p.pid as string | undefined) ?? ENVIRONMENT_PARTNER_ID };
  } catch {
    return undefined;
  }
}
