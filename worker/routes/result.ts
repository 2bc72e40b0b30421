/**
 * POST /api/result — the outcome of the verification a session's link
 * created, answered from the worker's own record. The vendor is asked at
 * most once per RESULT_POLL_SECONDS however many browsers poll, and at once
 * when a person comes back from the hosted flow with a check id or token.
 * Once the status is final the answer carries a signed result token.
 */
import { Hono } from 'hono';
import { ResultRequest, type ResultAnswer } from '../contract';
import type { AppEnv } from '../env';
import { issueResultToken } from '../outcomes/issue-token';
import { awaitingClaim, isFinal, type Verification } from '../outcomes/verification';
import { verifications } from '../outcomes/verification-store';
import { requireSession, sessionInvalid, sessionOwns } from '../session';
import { VendorError } from '../vendor/client';
import { vendorFault } from '../vendor/errors';
import { readJson } from '../validation';

export const result = new Hono<AppEnv>().post('/result', async (c) => {
  const { data: body } = await readJson(c, ResultRequest);
  const session = await requireSession(c, body.session);
  let v: Verification | undefined;
  try {
    v = await verifications(c.env).observe(session.vid, {
      ...(body.checkId ? { checkId: body.checkId } : {}),
      ...(body.token ? { token: body.token } : {}),
    });
  } catch (err) {
    if (err instanceof VendorError) throw vendorFault(err, 'result');
    throw err;
  }
  // Gone (it ended longer ago than it is kept), or not this session's.
  if (!sessionOwns(session, v)) throw sessionInvalid();
  const answer: ResultAnswer = { checkStatus: v.status, verificationId: v.id };
  if (v.handoff?.kind === 'link' && v.handoff.opened && !isFinal(v)) answer.phoneOpened = true;
  if (v.handoff?.returned && !awaitingClaim(v) && !isFinal(v)) answer.phoneReturned = true;
  if (isFinal(v)) answer.resultToken = await issueResultToken(c.env, v);
  return c.json(answer);
});
