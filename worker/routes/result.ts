/** POST /api/result — the outcome of the check a session's link started. */
import { Hono } from 'hono';
import { ResultRequest, type ResultAnswer } from '../contract';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { normaliseOrigin } from '../origins';
import { readSession, sessionSecret } from '../session';
import { VendorError } from '../vendor/client';
import { vendorFault } from '../vendor/errors';
import { vendorFor } from '../vendor/from-env';
import { readJson } from '../validation';

export const result = new Hono<AppEnv>().post('/result', async (c) => {
  const { data: body } = await readJson(c, ResultRequest);
  const session = body.session ? await readSession(sessionSecret(c.env)!, body.session) : undefined;
  if (!session) {
    throw new ApiError(401, 'SESSION_INVALID', 'This verification session has expired or is not valid. Please start again.', [
      { issue: 'is missing, expired or not valid', issueLocation: 'session' },
    ]);
  }
  // A session answers only to the page origin, and the partner, that created it
  // (an origin moved to another partner does not take its sessions along).
  const partner = c.get('partner')!;
  if (normaliseOrigin(c.req.header('Origin') ?? '') !== session.org || partner.id !== session.pid) {
    throw new ApiError(403, 'ORIGIN_NOT_ALLOWED', 'This session belongs to another site.');
  }
  try {
    const answer = await vendorFor(c, partner).result({
      // The entity comes from the signed session, never from the browser, so
      // nobody can read another person's check by sending its ids.
      entity: { entityId: session.sub },
      ...(body.checkId ? { checkId: body.checkId } : {}),
      ...(body.token ? { token: body.token } : {}),
      ...(c.env.KYC_PROVIDER ? { provider: c.env.KYC_PROVIDER } : {}),
    });
    return c.json({ checkStatus: answer.checkStatus } satisfies ResultAnswer);
  } catch (err) {
    if (err instanceof VendorError) throw vendorFault(err, 'result');
    throw err;
  }
});
