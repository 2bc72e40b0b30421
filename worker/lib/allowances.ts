/**
 * Budgets that outlive a rate-limit window and hold across partners: how
 * many texts one number got in the last 24 hours, and how many verifications
 * one client (IP) or one partner holds open. Each budget is a set of entries
 * that lapse (`until`), kept by one Durable Object per budget key
 * (`allowances-durable.ts`, binding LIMITS); an entry is taken before the
 * vendor is called and released when its verification ends (or lapses on
 * its own, so a lost release never holds a budget for good). Node tests,
 * which have no binding, give budgets in memory as the `allowances` port (test/support/node-twins.ts).
 *
 * Keys never hold an address or a number in clear, nor an unkeyed hash of one: `hashKey` first.
 */
import { config } from '../config';
import type { Env } from './env';
import type { WithDevSecrets } from './dev-secrets';
import { ApiError } from './errors';
import { keyedHash } from './keyed-hash';
import { systemClock } from './clock';

/** How long an open verification's hold lasts at most: a link's hour, the grace, and renewals' room. */
export const OPEN_HOLD_MS = 3 * 60 * 60 * 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;

/** The entry that marks a paused key (its `until` the pause's end), beside a budget's own entries. */
export const PAUSE_ENTRY = '~paused';

/** The pure rule of a pause over a key's entries: lapsed ones go, a later end stands; the pause's end. */
export function pauseIn(entries: Map<string, number>, until: number, now: number): number {
  for (const [k, u] of entries) if (u <= now) entries.delete(k);
  const end = Math.max(entries.get(PAUSE_ENTRY) ?? 0, until);
  entries.set(PAUSE_ENTRY, end);
  return end;
}

/** The pure rule over a budget's entries (id → until). */
export function takeFrom(entries: Map<string, number>, id: string, until: number, max: number, now: number): boolean {
  for (const [k, u] of entries) if (u <= now) entries.delete(k);
  if (entries.has(id)) return true;
  if (entries.size >= max) return false;
  entries.set(id, until);
  return true;
}

export interface Allowances {
  /** Takes an entry in the budget `key` unless it already holds `max`; false when full. */
  take(key: string, id: string, until: number, max: number): Promise<boolean>;
  release(key: string, id: string): Promise<void>;
  /**
   * Holds `key` paused until at least `until` (a later pause stands, an
   * earlier one is lengthened): the vendor's 429 for one partner's calls
   * (verifications/vendor-pace.ts). The pause's end.
   */
  pause(key: string, until: number): Promise<number>;
  /** When `key`'s pause ends, while it lasts. */
  pausedUntil(key: string): Promise<number | undefined>;
}

/** The part of the ports a budget needs: the store, and the secret its keys are hashed under. */
export interface WithAllowances extends WithDevSecrets {
  allowances: Allowances;
}

/** The budgets as Durable Objects (the `allowances` port; ports-for.ts builds it from the LIMITS binding). */
export function durableAllowances(ns: Env['LIMITS']): Allowances {
  const stub = (key: string) => ns.get(ns.idFromName(objectOf(key)));
  return {
    take: (key, id, until, max) => stub(key).take(key, id, until, max),
    release: (key, id) => stub(key).release(key, id),
    pause: (key, until) => stub(key).pause(key, until),
    pausedUntil: async (key) => (await stub(key).pausedUntil(key)) ?? undefined,
  };
}

/** Objects the hashed budgets (clients, numbers) are spread over. */
export const LIMIT_SHARDS = 64;

/**
 * The object that keeps a budget: a partner's open budget its own (its
 * partner's every link asks it); a hashed key (`hashKey`: one per client or
 * number, new for nearly every request) one of LIMIT_SHARDS objects by its
 * hash, always the same one, so the budget stays consistent across isolates.
 */
export function objectOf(key: string): string {
  const hash = /^[\w-]+ ([0-9a-f]{32})$/.exec(key)?.[1];
  return hash ? `shard ${parseInt(hash.slice(0, 8), 16) % LIMIT_SHARDS}` : key;
}

/** A budget key that names its subject without holding it in clear, nor a hash anyone could recompute (keyed-hash.ts, 16 bytes). */
export async function hashKey(env: Env, ports: WithDevSecrets, kind: string, subject: string): Promise<string> {
  return `${kind} ${await keyedHash(env, ports, kind, subject, 16)}`;
}

export const tooMany = (what: string, retryAfterSeconds: number) =>
  new ApiError(429, 'RATE_LIMITED', `Too many ${what}. Please wait and try again later.`, [], {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

/**
 * The holds of a new verification: its client's and its partner's open
 * budgets (released when it ends). Both are asked at once (two objects, one
 * round trip); when either refuses, the other is given back before the 429.
 */
export async function holdOpen(
  env: Env,
  ports: WithAllowances,
  verificationId: string,
  ipKey: string,
  partnerId: string,
  now = systemClock(),
): Promise<string[]> {
  const a = ports.allowances;
  const byIp = await hashKey(env, ports, 'open-ip', ipKey);
  const byPartner = `open-partner ${partnerId}`;
  const until = now + OPEN_HOLD_MS;
  const [ipOk, partnerOk] = await Promise.all([
    a.take(byIp, verificationId, until, config(env).limits.LIMIT_OPEN_PER_IP),
    a.take(byPartner, verificationId, until, config(env).limits.LIMIT_OPEN_PER_PARTNER),
  ]);
  if (ipOk && partnerOk) return [byIp, byPartner];
  await releaseHolds(a, verificationId, [...(ipOk ? [byIp] : []), ...(partnerOk ? [byPartner] : [])]);
  throw tooMany(ipOk ? 'verifications open for this site' : 'verifications open from this connection', 15 * 60);
}

/** Gives a verification's holds back (it ended, or its link was never made). */
export async function releaseHolds(a: Allowances, verificationId: string, holds: readonly string[] | undefined): Promise<void> {
  await Promise.all((holds ?? []).map((k) => a.release(k, verificationId).catch(() => undefined)));
}

/** One more text to this number today (across partners), or 429. */
export async function countText(env: Env, ports: WithAllowances, e164: string, id: string, now = systemClock()): Promise<void> {
  const key = await hashKey(env, ports, 'sms-day', e164);
  if (!(await ports.allowances.take(key, id, now + DAY_MS, config(env).limits.LIMIT_SMS_PER_NUMBER_PER_DAY))) {
    throw tooMany('text messages to this number today', 60 * 60);
  }
}
