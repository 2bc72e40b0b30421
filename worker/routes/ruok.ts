/** GET /api/ruok — OK only when the vendor confirms our credentials. */
import { Hono } from 'hono';
import type { RuokAnswer } from '../contract';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { vendorFault } from '../vendor/errors';
import { vendorFor } from '../vendor/from-env';

/** Monitors poll this; one vendor call per isolate per window is plenty. */
export const RUOK_CACHE_MS = 10_000;
let lastOk: { key: string; at: number } | undefined;

export const ruok = new Hono<AppEnv>().get('/ruok', async (c) => {
  const key = `${c.env.KYC_BASE_URL ?? ''}|${c.env.KYC_CUSTOMER_ID ?? ''}|${c.env.KYC_CUSTOMER_CHILD_ID ?? ''}`;
  if (lastOk && lastOk.key === key && Date.now() - lastOk.at < RUOK_CACHE_MS) {
    return c.json({ status: 'OK' } satisfies RuokAnswer);
  }
  let status: string;
  try {
    status = (await vendorFor(c).ruok()).status;
  } catch (err) {
    throw vendorFault(err, 'ruok');
  }
  if (status !== 'OK') throw new ApiError(502, 'VENDOR_ERROR', 'The verification service is not answering OK.');
  lastOk = { key, at: Date.now() };
  return c.json({ status: 'OK' } satisfies RuokAnswer);
});

/** Tests reset the cache between cases. */
export function resetRuokCache(): void {
  lastOk = undefined;
}
