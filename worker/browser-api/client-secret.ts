/**
 * The browser side of a verification the partner's server started: the page
 * holds its client secret (`<kyc-onboard client-secret>`). A secret that is
 * not genuine, or is another partner's, is one 401; a canceled or expired
 * verification, or a redacted one, is a 409 `VERIFICATION_CLOSED` (the widget's calm error);
 * nothing here calls the vendor.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';
import { readClientSecret } from '../verifications/client-secret';
import type { Verification } from '../verifications/verification';
import { lifecycle } from '../verifications/lifecycle';

export const clientSecretInvalid = () =>
  new ApiError(401, 'CLIENT_SECRET_INVALID', 'This verification cannot be started from this page.', [
    { issue: 'is not a valid client secret for this site', issueLocation: 'clientSecret' },
  ]);

export const verificationClosed = () =>
  new ApiError(409, 'VERIFICATION_CLOSED', 'This verification was canceled or has expired.', [
    { issue: 'belongs to a verification that was canceled or has expired', issueLocation: 'clientSecret' },
  ]);

/** The verification a client secret names, for the request's partner, or the 401. */
export async function clientSecretVerification(c: Context<AppEnv>, secret: string): Promise<Verification> {
  const id = await readClientSecret(c.env, c.var.ports, secret);
  const v = id ? await c.var.ports.verifications.execute(id, { type: 'read' }) : undefined;
  if (!v || v.partnerId !== c.get('partner')?.id || v.customerRefSource !== 'server') throw clientSecretInvalid();
  const status = lifecycle(v);
  // A redacted verification (even a final one) is closed to the page: its outcome is the partner's server's alone.
  if (status === 'canceled' || status === 'expired' || v.redactedAt !== undefined) throw verificationClosed();
  return v;
}
