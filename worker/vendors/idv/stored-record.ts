/**
 * Records stored before there were vendors were all idv's, and named its
 * things in its words: the return parameters a browser brought as `checkId`
 * and `token`, an attempt's check as `checkId`. They are read in ours (the
 * object writes the record back in ours at its next change); a record in
 * ours is returned as it is.
 */
import type { Attempt, StoredVerification } from '../../verifications/verification';

type FormerAttempt = Attempt & { checkId?: unknown };
type Former = { checkId?: unknown; token?: unknown; attempts?: FormerAttempt[] };

const text = (value: unknown): value is string => typeof value === 'string' && value !== '';

export function upgradedRecord<T extends StoredVerification>(stored: T): T {
  const old = stored as Omit<T, 'attempts'> & Former;
  const formerAttempts = old.attempts?.some((a) => a.checkId !== undefined) ?? false;
  if (old.checkId === undefined && old.token === undefined && !formerAttempts) return stored;
  const { checkId, token, attempts, ...rest } = old;
  const params = { ...(text(checkId) ? { checkId } : {}), ...(text(token) ? { token } : {}) };
  return {
    ...rest,
    ...(Object.keys(params).length && rest.returnParams === undefined ? { returnParams: params } : {}),
    ...(attempts
      ? { attempts: attempts.map(({ checkId: id, ...a }) => (text(id) && a.check === undefined ? { ...a, check: id } : a)) }
      : {}),
  } as unknown as T;
}
