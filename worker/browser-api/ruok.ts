/**
 * GET /api/ruok — OK only when the vendor confirms our credentials: the
 * operator's own (KYC_*), or with `?partner=<partnerId>` that partner's
 * (its child ID and key), so an operator can check each partner's setup.
 * That form answers the operator only (the /ops access: `Authorization:
 * Bearer <OPS_TOKEN>`, Cloudflare Access, or a local sandbox): to anyone else
 * every id, known or not, is the same 404, so it does not tell which partner
 * ids exist.
 */
import { Hono } from 'hono/tiny';
import type { RuokAnswer } from '../contract';
import type { AppEnv } from '../app-env';
import { ApiError, validationError } from '../lib/errors';
import { PARTNER_ID } from '../partners/partner';
import { RegistryError, SealingError } from '../partners/registry';
import { operatorCredentials, partnerById } from '../partners/resolve';
import { vendorFault } from '../vendor-api/errors';
import { vendorFor } from '../vendor-api/from-env';
import { checkAccess } from '../ops/access';

/** Monitors poll this; one vendor call per isolate per window is plenty. */
export const RUOK_CACHE_MS = 10_000;
const lastOk = new Map<string, number>();

export const ruok = new Hono<AppEnv>().get('/ruok', async (c) => {
  const named = c.req.query('partner');
  let who = operatorCredentials(c.var.config);
  if (named !== undefined) {
    if (!PARTNER_ID.test(named))
      throw validationError([{ issue: 'must be a partner id (lower-case letters, digits, dashes)', issueLocation: 'partner' }]);
    const noSuchPartner = () => new ApiError(404, 'NOT_FOUND', 'There is no such partner.');
    if ((await checkAccess(c.env, c.req.url, c.req.raw.headers)).kind !== 'allowed') throw noSuchPartner();
    let partner;
    try {
      partner = await partnerById(c.env, c.req.url, named);
    } catch (err) {
      if (err instanceof SealingError || err instanceof RegistryError) {
        throw new ApiError(500, 'MISCONFIGURED', 'The service is misconfigured. The operator has to fix its settings.');
      }
      throw err;
    }
    if (!partner) throw noSuchPartner();
    who = partner;
  }
  const key = `${c.var.config.vendor.baseUrl ?? ''}|${who.customerId}|${who.childId ?? ''}|${who.apiKey}`;
  const at = lastOk.get(key);
  if (at !== undefined && c.var.clock() - at < RUOK_CACHE_MS) {
    return c.json({ status: 'OK' } satisfies RuokAnswer);
  }
  let status: string;
  try {
    status = (await vendorFor(c, who).ruok()).status;
  } catch (err) {
    throw vendorFault(err, 'ruok');
  }
  if (status !== 'OK') throw new ApiError(502, 'VENDOR_ERROR', 'The verification service is not answering OK.');
  if (lastOk.size > 1000) lastOk.clear();
  lastOk.set(key, c.var.clock());
  return c.json({ status: 'OK' } satisfies RuokAnswer);
});

/** Tests reset the cache between cases. */
export function resetRuokCache(): void {
  lastOk.clear();
}
