/**
 * The result token of a final verification, as `/api/result` and
 * `GET /v1/verifications/{id}` hand it out: the same outcome claims every
 * time it is asked for; `iat`/`exp` are of this issue.
 */
import type { Env } from '../lib/env';
import type { WithDevSecrets } from '../lib/dev-secrets';
import { ApiError } from '../lib/errors';
import { RESULT_TOKEN_TTL_SECONDS, signResultToken } from './result-token';
import { signingKeys } from './signing-keys';
import { vendorOf, type Verification } from './verification';
import { checkStatusOf } from './lifecycle';
import { resultOfStatus } from '../vendors/result';

export async function issueResultToken(env: Env, ports: WithDevSecrets, v: Verification, now: number): Promise<string> {
  const keys = await signingKeys(env, ports);
  if (!keys?.length) throw new ApiError(500, 'MISCONFIGURED', 'The service is misconfigured. The operator has to fix its settings.');
  const iat = Math.floor(now / 1000);
  return signResultToken(keys[0]!, {
    iss: v.workerOrigin,
    aud: v.partnerOrigin,
    sub: v.id,
    ...(v.entityId !== undefined ? { entity_id: v.entityId } : {}),
    check_status: checkStatusOf(v),
    ...resultClaim(v),
    vendor: vendorOf(v),
    // A record without a source predates it, and only the page could set a reference then.
    ...(v.customerRef ? { customer_ref: v.customerRef, customer_ref_source: v.customerRefSource ?? 'page' } : {}),
    iat,
    exp: iat + RESULT_TOKEN_TTL_SECONDS,
    jti: `${v.id}.result`,
    // Records made before livemode existed have none: they count as test-mode (false), never as live.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare
    livemode: v.livemode === true,
  });
}

/** The outcome in our words, for a final verification (a token is issued for no other). */
function resultClaim(v: Verification): { result?: NonNullable<ReturnType<typeof resultOfStatus>> } {
  const result = resultOfStatus(checkStatusOf(v), vendorOf(v));
  return result ? { result } : {};
}
