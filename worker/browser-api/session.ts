/**
 * The session token that binds a result lookup to the link it came from: an
 * HS256 JWT (lib/hs256.ts) holding the vendor entityId, the verificationId, the
 * origin and the partner that created it, and an expiry. Nothing personal goes
 * in it. With the sandbox as the vendor and no SESSION_SECRET, a development
 * secret made on first use and kept in a Durable Object signs (nothing
 * committed can); with a real vendor and no secret, /api refuses to run
 * (500 MISCONFIGURED).
 */
import type { Context } from 'hono';
import { sessionSecret } from '../lib/session-secret';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';
import { signHs256, verifyHs256 } from '../lib/hs256';
import { normaliseOrigin } from '../lib/origins';
import { ENVIRONMENT_PARTNER_ID } from '../partners/partner';
import { systemClock } from '../lib/clock';

/** Long enough to finish the hosted flow (its link lives 30 minutes) and poll. */
export const SESSION_TTL_SECONDS = 60 * 60;

export interface Session {
  /** Vendor entity id. */
  sub: string;
  /** The verification this session's link created. */
  vid: string;
  /** Origin that asked for the link; /api/result must come from it. */
  org: string;
  /** The partner it was made for; /api/result must resolve to the same one. */
  pid: string;
  iat: number;
  exp: number;
}

export interface SessionFor {
  entityId: string;
  verificationId: string;
  origin: string;
  partnerId: string;
}

export async function createSession(secret: string, s: SessionFor, now = systemClock()): Promise<string> {
  const iat = Math.floor(now / 1000);
  const payload: Session = { sub: s.entityId, vid: s.verificationId, org: s.origin, pid: s.partnerId, iat, exp: iat + SESSION_TTL_SECONDS };
  return signHs256({ ...payload }, secret);
}

/** The session, or undefined when missing, malformed, tampered or expired. */
export async function readSession(secret: string, token: string): Promise<Session | undefined> {
  try {
    const p = await verifyHs256(token, secret);
    if (typeof p.sub !== 'string' || typeof p.vid !== 'string' || typeof p.org !== 'string' || typeof p.exp !== 'number') return undefined;
    if (p.pid !== undefined && typeof p.pid !== 'string') return undefined;
    // Sessions made before partners existed were all the environment's.
    return { ...(p as unknown as Session), pid: p.pid ?? ENVIRONMENT_PARTNER_ID };
  } catch {
    return undefined;
  }
}

/** Whether a verification is the session's: its entity and its partner (gone, or another's, is not). */
export const sessionOwns = <V extends { entityId?: string; partnerId: string }>(
  s: Session,
  v: V | undefined,
): v is V & { entityId: string } => v !== undefined && v.entityId !== undefined && v.entityId === s.sub && v.partnerId === s.pid;

export const sessionInvalid = () =>
  new ApiError(401, 'SESSION_INVALID', 'This verification session has expired or is not valid. Please start again.', [
    { issue: 'is missing, expired or not valid', issueLocation: 'session' },
  ]);

/**
 * The request's session (401 when missing or not valid). It answers only to
 * the page origin, and the partner, that created it: an origin moved to
 * another partner does not take its sessions along (403).
 */
export async function requireSession(c: Context<AppEnv>, token: string | undefined): Promise<Session> {
  const session = token ? await readSession((await sessionSecret(c.env, c.var.ports))!, token) : undefined;
  if (!session) throw sessionInvalid();
  if (normaliseOrigin(c.req.header('Origin') ?? '') !== session.org || c.get('partner')!.id !== session.pid) {
    throw new ApiError(403, 'ORIGIN_NOT_ALLOWED', 'This session belongs to another site.');
  }
  return session;
}
