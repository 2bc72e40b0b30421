/**
 * GET /api/ruok — OK only when the vendor confirms our credentials: the
 * operator's own (KYC_*), or with `?partner=<partnerId>` that partner's
 * (its child ID and key), so an operator can check each partner's setup.
 * That form answers the operator only (the /ops access: `Authorization:
 * Bearer <OPS_TOKEN>`, Cloudflare Access, or a local sandbox): to anyone else
 * every id, known or not, is the same 404, so it does not tell which partner
 * ids exist.
 *
 * One vendor call at a time per credentials (an isolate's concurrent checks
 * share it), and its answer, OK or not, is remembered for a while: a monitor
 * polling every second, or thirty of them while the vendor hangs, cost one
 * vendor call, not one each.
 */
import { Hono } from 'hono/tiny';
import type { RuokAnswer } from '../contract';
import type { AppEnv } from '../app-env';
import { ApiError, validationError } from '../lib/errors';
import { PARTNER_ID, type Partner } from '../partners/partner';
import { RegistryError, SealingError } from '../partners/registry';
import { operatorCredentials, partnerById } from '../partners/resolve';
import { isVendorOutage, vendorApiError } from '../vendors/errors';
import { markDown, markUp } from '../vendors/health';
import { adapterOf, vendorsOf } from '../vendors/for-partner';
import { checkAccess } from '../ops/access';
import { bindingWarnings } from '../ops/binding-warnings';

/** Monitors poll this; one vendor call per isolate per window is plenty. */
export const RUOK_CACHE_MS = 10_000;
/** A failure is remembered for less: a vendor back up is seen soon. */
export const RUOK_FAILURE_CACHE_MS = 5_000;

/** What the last check of some credentials came to: OK, or the error it answered. */
interface Checked {
  at: number;
  error?: ApiError;
}
const checked = new Map<string, Checked>();
/** The check under way per credentials: concurrent calls wait for it. */
const inflight = new Map<string, Promise<Checked>>();

export const ruok = new Hono<AppEnv>().get('/ruok', async (c) => {
  const named = c.req.query('partner');
  let who: ReturnType<typeof operatorCredentials> & Pick<Partner, 'vendors'> & { id?: string } = operatorCredentials(
    c.var.config,
    c.var.ports.sandboxDefaults,
  );
  if (named !== undefined) {
    if (!PARTNER_ID.test(named))
      throw validationError([{ issue: 'must be a partner id (lower-case letters, digits, dashes)', issueLocation: 'partner' }]);
    const noSuchPartner = () => new ApiError(404, 'NOT_FOUND', 'There is no such partner.');
    if ((await checkAccess(c.env, c.var.ports, c.req.url, c.req.raw.headers)).kind !== 'allowed') throw noSuchPartner();
    let partner;
    try {
      partner = await partnerById(c.env, c.var.ports, c.req.url, named);
    } catch (err) {
      if (err instanceof SealingError || err instanceof RegistryError) {
        throw new ApiError(500, 'MISCONFIGURED', 'The service is misconfigured. The operator has to fix its settings.');
      }
      throw err;
    }
    if (!partner) throw noSuchPartner();
    who = partner;
  }
  // The first vendor of whoever is checked (the operator's: the environment's), through its adapter's health.
  const vendor = vendorsOf(c.var.config, who)[0]!;
  const key = `${vendor}|${c.var.config.vendor.baseUrl ?? ''}|${who.customerId}|${who.childId ?? ''}|${who.apiKey}`;
  const last = checked.get(key);
  const fresh = last && c.var.clock() - last.at < (last.error ? RUOK_FAILURE_CACHE_MS : RUOK_CACHE_MS) ? last : undefined;
  let result = fresh;
  if (!result) {
    let running = inflight.get(key);
    if (!running) {
      const adapter = adapterOf(c, who, vendor);
      running = (async (): Promise<Checked> => {
        try {
          await adapter.health();
          markUp(vendor); // what failover knows of the vendor (vendors/health.ts)
          return { at: c.var.clock() };
        } catch (err) {
          if (isVendorOutage(err)) markDown(vendor, c.var.clock());
          // An answer that is not OK is the adapter's bad answer: the same 502.
          return { at: c.var.clock(), error: vendorApiError(err, 'health') };
        }
      })();
      inflight.set(key, running);
      // Only an answer is remembered (an error of ours is thrown to each waiting call, not kept).
      void running
        .then((r) => {
          if (checked.size > 1000) checked.clear();
          checked.set(key, r);
        })
        .catch(() => undefined)
        .finally(() => inflight.delete(key));
    }
    result = await running;
  }
  if (result.error) throw result.error;
  const warnings = bindingWarnings(c.env);
  return c.json({ status: 'OK', ...(warnings.length ? { warnings } : {}) } satisfies RuokAnswer);
});

/** Tests reset the cache between cases. */
export function resetRuokCache(): void {
  checked.clear();
  inflight.clear();
}
