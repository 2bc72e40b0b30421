/**
 * POST /api/withdraw-link — the person takes back a link handed to a phone ("Use this device instead", "Change my
 * number" in the widget): the verification it belongs to ends `canceled` at once (the verification logic's cancel:
 * webhook `verification.canceled`, its open-verification holds given back), so the QR code, the copied or texted
 * link and its code credit nobody. The widget goes back to the form with every value kept, and the next submission
 * starts a new verification. A verification the partner's server started is never ended from a page: 409.
 */
import { Hono } from 'hono/tiny';
import { WithdrawLinkRequest, type WithdrawLinkAnswer } from '../contract';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';
import { readJson } from '../lib/validation';
import { lifecycle } from '../verifications/lifecycle';
import { requireSession, sessionInvalid, sessionOwns } from './session';

export const withdrawLink = new Hono<AppEnv>().post('/withdraw-link', async (c) => {
  const { data: body } = await readJson(c, WithdrawLinkRequest);
  const session = await requireSession(c, body.session);
  const store = c.var.ports.verifications;
  const v = await store.execute(session.vid, { type: 'read' });
  if (!sessionOwns(session, v)) throw sessionInvalid();
  if (v.server) {
    throw new ApiError(409, 'WITHDRAW_NOT_ALLOWED', "A verification the partner's server started is ended by that server.", [
      { issue: "belongs to a verification the partner's server started", issueLocation: 'session' },
    ]);
  }
  const after = (await store.execute(v.id, { type: 'cancel' })) ?? v;
  const status = lifecycle(after);
  const answer: WithdrawLinkAnswer = {
    verificationId: v.id,
    status: status === 'final' || status === 'expired' ? status : 'canceled',
  };
  return c.json(answer);
});
