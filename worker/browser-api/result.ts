/**
 * POST /api/result — the outcome of the verification a session's link
 * created, answered from the worker's own record. The vendor is asked at
 * most once per RESULT_POLL_SECONDS however many browsers poll, and at once
 * when a person comes back from the hosted flow with a check id or token.
 * Once the status is final the answer carries a signed result token.
 */
import type { Context } from 'hono';
import { Hono } from 'hono/tiny';
import { ResultRequest, type ResultAnswer } from '../contract';
import type { AppEnv } from '../app-env';
import { issueResultToken } from '../verifications/issue-token';
import { vendorOf, type Verification } from '../verifications/verification';
import { resultOfStatus } from '../vendors/result';
import { requireSession, sessionInvalid, sessionOwns } from './session';
import { isAdapterError, vendorApiError } from '../vendors/errors';
import { readJson } from '../lib/validation';
import { ApiError, location, validationError } from '../lib/errors';
import type * as z from 'zod/mini';
import { MAX_RETURN_KEYS, RETURN_KEY } from '../vendors/return-params';
import { awaitingClaim, checkStatusOf, expiredReason, formKeyFor, isFinal, lifecycle, requiresInput } from '../verifications/lifecycle';
import { clientSecretVerification, verificationClosed } from './client-secret';

/**
 * `{clientSecret}` in place of a session (a verification the partner's server
 * started): `created` (the form), `open` (the vendor asked as for a session,
 * at most once per poll interval), or `final` with its token; canceled or
 * expired is the 409 `VERIFICATION_CLOSED`.
 */
async function resultForClientSecret(c: Context<AppEnv>, secret: string) {
  let v = await clientSecretVerification(c, secret);
  if (lifecycle(v) === 'open' || lifecycle(v) === 'requires_input') {
    try {
      v = (await c.var.ports.verifications.execute(v.id, { type: 'observe' })) ?? v;
    } catch (err) {
      if (isAdapterError(err)) throw vendorApiError(err, 'result');
      throw err;
    }
  }
  const status = lifecycle(v);
  if (status === 'canceled' || status === 'expired' || v.redactedAt !== undefined) throw verificationClosed();
  const answer: ResultAnswer = { checkStatus: checkStatusOf(v), verificationId: v.id, status, ...lastAttempt(v), ...outcomeOf(v) };
  if (status === 'final') answer.resultToken = await issueResultToken(c.env, c.var.ports, v, c.var.clock());
  return c.json(answer);
}

/** The vendor once a link was made, and once final the outcome in our words (what the widget decides from). */
const outcomeOf = (v: Verification): Pick<ResultAnswer, 'result' | 'vendor'> => {
  const result = isFinal(v) ? resultOfStatus(checkStatusOf(v), vendorOf(v)) : undefined;
  return { ...(v.entityId !== undefined || v.linkCreatedAt !== undefined ? { vendor: vendorOf(v) } : {}), ...(result ? { result } : {}) };
};

/** In `requires_input`: how the last attempt ended (nothing else about it). */
const lastAttempt = (v: Verification): Pick<ResultAnswer, 'lastAttempt'> => {
  const last = v.attempts?.at(-1);
  return requiresInput(v) && last ? { lastAttempt: { checkStatus: last.checkStatus } } : {};
};

/** The fields ResultRequest names; any other is a widget from before `hint` bringing a return parameter. */
const NAMED = new Set(['session', 'clientSecret', 'hint', 'returned']);

/**
 * The return's parameters: `hint`, or (a widget served before it) the request's other fields, checked as `hint`'s
 * are (a 400 naming the field). Both at once is refused: one widget sends one or the other.
 */
function returnParamsOf(body: z.output<typeof ResultRequest>): { params?: Record<string, string> } {
  const legacy = Object.entries(body).filter(([key]) => !NAMED.has(key)) as [string, string][];
  if (legacy.length && body.hint) {
    throw validationError([
      { issue: 'cannot be combined with hint: send the return parameters in hint', issueLocation: location([legacy[0]![0]]) },
    ]);
  }
  const bad = legacy.find(([key]) => !RETURN_KEY.test(key));
  if (bad) throw validationError([{ issue: 'is not a known field', issueLocation: location([bad[0]]) }]);
  if (legacy.length > MAX_RETURN_KEYS) {
    throw validationError([
      { issue: `is one too many: at most ${MAX_RETURN_KEYS} return parameters`, issueLocation: location([legacy[MAX_RETURN_KEYS]![0]]) },
    ]);
  }
  const params = body.hint ?? Object.fromEntries(legacy);
  return Object.keys(params).length ? { params } : {};
}

export const result = new Hono<AppEnv>().post('/result', async (c) => {
  const { data: body } = await readJson(c, ResultRequest);
  if (body.clientSecret !== undefined) {
    if (body.session !== undefined) {
      throw validationError([{ issue: 'cannot be combined with session: send one of them', issueLocation: 'clientSecret' }]);
    }
    return resultForClientSecret(c, body.clientSecret);
  }
  const session = await requireSession(c, body.session);
  let v: Verification | undefined;
  try {
    v = await c.var.ports.verifications.execute(session.vid, {
      type: 'observe',
      hint: { ...returnParamsOf(body), ...(body.returned ? { returned: body.returned } : {}) },
    });
  } catch (err) {
    if (isAdapterError(err)) throw vendorApiError(err, 'result');
    throw err;
  }
  // Gone (it ended longer ago than it is kept), or not this session's.
  if (!sessionOwns(session, v)) throw sessionInvalid();
  // Canceled or redacted by the partner's server: the page stops asking, and a redacted final one gives no token.
  if (lifecycle(v) === 'canceled' || v.redactedAt !== undefined) throw verificationClosed();
  // Ended without an outcome (the link ran out, or the code was entered wrongly
  // too often): final, and no token ever. Polling stops.
  if (lifecycle(v) === 'expired') {
    throw new ApiError(409, 'VERIFICATION_CLOSED', 'This verification has ended without an outcome. Please start again.', [
      {
        issue:
          expiredReason(v) === 'not_claimed' ? 'ended: the code was not entered correctly' : 'ended: no outcome before its link expired',
        issueLocation: 'session',
      },
    ]);
  }
  const answer: ResultAnswer = {
    checkStatus: checkStatusOf(v),
    verificationId: v.id,
    ...(requiresInput(v) ? { status: 'requires_input' as const, ...lastAttempt(v) } : { status: isFinal(v) ? 'final' : 'open' }),
    ...outcomeOf(v),
  };
  if (v.handoff?.kind === 'link' && v.handoff.opened && !isFinal(v)) answer.phoneOpened = true;
  if (v.handoff?.returned && !awaitingClaim(v) && !isFinal(v)) answer.phoneReturned = true;
  // Only to the session holder, only while open or requires_input: the widget fills its form again with it.
  const formKey = formKeyFor(v);
  if (formKey) answer.formKey = formKey;
  if (isFinal(v)) answer.resultToken = await issueResultToken(c.env, c.var.ports, v, c.var.clock());
  return c.json(answer);
});
