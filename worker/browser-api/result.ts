/**
 * POST /api/result — the outcome of the verification a session's link
 * created, answered from the worker's own record. The vendor is asked at
 * most once per RESULT_POLL_SECONDS however many browsers poll, and at once
 * when a person comes back from the hosted flow with a check id or token.
 * Once the status is final the answer carries a signed result token.
 */
import { Hono } from 'hono';
import { ResultRequest, type ResultAnswer } from '../contract';
import type { AppEnv, Env } from '../lib/env';
import { ApiError } from '../lib/errors';
import { RESULT_TOKEN_TTL_SECONDS, signResultToken } from '../verifications/result-token';
import { signingKeys } from '../verifications/signing-keys';
import { awaitingClaim, isFinal, type Verification } from '../verifications/verification';
import { verifications } from '../verifications/verification-store';
import { requireSession, sessionInvalid, sessionOwns } from './session';
import { VendorError } from '../vendor-api/client';
import { vendorFault } from '../vendor-api/errors';
import { readJson } from '../lib/validation';

/** The token: the same outcome claims every time it is asked for; `iat`/`exp` are of this issue. */
async function resultToken(env: Env, v: Verification, now = Date.now()): Promise<string> {
  const keys = await signingKeys(env);
  if (!keys?.length) throw new ApiError(500, 'MISCONFIGURED', 'The service is misconfigured. The operator has to fix its settings.');
  const iat = Math.floor(now / 1000);
  return signResultToken(keys[0]!, {
    iss: v.workerOrigin,
    aud: v.partnerOrigin,
    sub: v.id,
    entity_id: v.entityId,
    check_status: v.status,
    ...(v.customerRef ? { customer_ref: v.customerRef } : {}),
    iat,
    exp: iat + RESULT_TOKEN_TTL_SECONDS,
    jti: `${v.id}.result`,
  });
}

export const result = new Hono<AppEnv>().post('/result', async (c) => {
  const { data: body } = await readJson(c, ResultRequest);
  const session = await requireSession(c, body.session);
  let v: Verification | undefined;
  try {
    v = await verifications(c.env).observe(session.vid, {
      ...(body.checkId ? { checkId: body.checkId } : {}),
      ...(body.token ? { token: body.token } : {}),
      ...(body.returned ? { returned: body.returned } : {}),
    });
  } catch (err) {
    if (err instanceof VendorError) throw vendorFault(err, 'result');
    throw err;
  }
  // Gone (it ended longer ago than it is kept), or not this session's.
  if (!sessionOwns(session, v)) throw sessionInvalid();
  // Ended without an outcome (the link ran out, or the code was entered wrongly
  // too often): final, and no token ever. Polling stops.
  if (v.expiredAt !== undefined && !isFinal(v)) {
    throw new ApiError(409, 'VERIFICATION_CLOSED', 'This verification has ended without an outcome. Please start again.', [
      {
        issue:
          v.expiredReason === 'not_claimed' ? 'ended: the code was not entered correctly' : 'ended: no outcome before its link expired',
        issueLocation: 'session',
      },
    ]);
  }
  const answer: ResultAnswer = { checkStatus: v.status, verificationId: v.id };
  if (v.handoff?.kind === 'link' && v.handoff.opened && !isFinal(v)) answer.phoneOpened = true;
  if (v.handoff?.returned && !awaitingClaim(v) && !isFinal(v)) answer.phoneReturned = true;
  if (isFinal(v)) answer.resultToken = await resultToken(c.env, v);
  return c.json(answer);
});
