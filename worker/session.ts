/**
 * The session token that binds a result lookup to the link it came from: an
 * HS256 JWT (hono/jwt) holding the vendor entityId, the origin that created it
 * and an expiry. Nothing personal goes in it. With the sandbox as the vendor
 * and no SESSION_SECRET, a development key is derived; with a real vendor and
 * no secret, /api refuses to run (500 MISCONFIGURED).
 */
import { sign, verify } from 'hono/jwt';
import { usesSandbox, type Env } from './env';

/** Long enough to finish the hosted flow (its link lives 30 minutes) and poll. */
export const SESSION_TTL_SECONDS = 60 * 60;

export interface Session {
  /** Vendor entity id. */
  sub: string;
  /** Origin that asked for the link; /api/result must come from it. */
  org: string;
  iat: number;
  exp: number;
}

const DEV_SECRET = 'kyc-onboard sandbox development session key (not for production)';

export function sessionSecret(env: Env): string | undefined {
  const s = env.SESSION_SECRET?.trim();
  if (s) return s;
  return usesSandbox(env) ? DEV_SECRET : undefined;
}

export async function createSession(secret: string, entityId: string, origin: string, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  const payload: Session = { sub: entityId, org: origin, iat, exp: iat + SESSION_TTL_SECONDS };
  return sign({ ...payload }, secret, 'HS256');
}

/** The session, or undefined when missing, malformed, tampered or expired. */
export async function readSession(secret: string, token: string): Promise<Session | undefined> {
  try {
    const p = await verify(token, secret, 'HS256');
    if (typeof p.sub !== 'string' || typeof p.org !== 'string' || typeof p.exp !== 'number') return undefined;
    return p as unknown as Session;
  } catch {
    return undefined;
  }
}
