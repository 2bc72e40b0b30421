/**
 * The sales demo's vendor switch over HTTP (vendor-switch.ts), local stack
 * only, from this machine only (by the connection's address, like the
 * sandbox's outcomes): the switch is the whole isolate's, so nobody else may
 * turn it.
 *
 *   GET  /sandbox/demo/vendors   each demo partner's vendors and failover, and which doubles are down
 *   POST /sandbox/demo/vendors   {"partnerId"?, "use"?: "idv"|"stripe"|"idv,stripe"|"settings", "down"?: {"vendor", "outage": "unreachable"|"timeout"|"up"}}
 *
 * `use` switches the demo partner (both, without `partnerId`): one vendor,
 * or idv then stripe with failover before start, or back to the deployment's
 * KYC_VENDOR and VENDOR_FAILOVER. `down` takes a double down or brings it up.
 */
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';
import { fromThisMachine } from '../lib/local-client';
import { readJson } from '../lib/validation';
import { VENDOR_IDS } from '../vendors/adapter';
import { failoverOf, vendorsOf } from '../vendors/for-partner';
import { DEMO_PARTNERS } from './partners';
import { demoChoice, outageOf, setDemoChoice, setOutage, type DemoVendorChoice } from './vendor-switch';

const USES = { idv: ['idv'], stripe: ['stripe'], 'idv,stripe': ['idv', 'stripe'] } as const;

const SwitchRequest = z.strictObject({
  partnerId: z.optional(z.enum(DEMO_PARTNERS.map((d) => d.id) as [string, ...string[]])),
  use: z.optional(z.enum(['idv', 'stripe', 'idv,stripe', 'settings'])),
  down: z.optional(z.strictObject({ vendor: z.enum(VENDOR_IDS), outage: z.enum(['unreachable', 'timeout', 'up']) })),
});

const nothingHere = () => new ApiError(404, 'NOT_FOUND', 'There is nothing here.');

export const demoVendorRoutes = new Hono<AppEnv>()
  .use('/sandbox/demo/vendors', async (c, next) => {
    if (!c.var.config.vendor.sandbox || !c.var.config.demo || !fromThisMachine(c.var.config, c.req.url, c.req.raw.headers))
      throw nothingHere();
    await next();
    c.header('Cache-Control', 'no-store');
  })
  .get('/sandbox/demo/vendors', (c) => c.json(state(c.var.config)))
  .post('/sandbox/demo/vendors', async (c) => {
    const { data } = await readJson(c, SwitchRequest);
    if (data.use) {
      const choice: DemoVendorChoice | undefined =
        data.use === 'settings'
          ? undefined
          : { vendors: [...USES[data.use]], failover: data.use === 'idv,stripe' ? 'before_start' : 'off' };
      for (const d of DEMO_PARTNERS) if (!data.partnerId || d.id === data.partnerId) setDemoChoice(d.id, choice);
    }
    if (data.down) setOutage(data.down.vendor, data.down.outage === 'up' ? undefined : data.down.outage);
    return c.json(state(c.var.config));
  });

/** What the demo console shows: each demo partner's vendors as a link would use them, and each double's state. */
function state(cfg: AppEnv['Variables']['config']) {
  return {
    partners: DEMO_PARTNERS.map((d) => {
      const own = demoChoice(d.id) ?? {};
      return {
        partnerId: d.id,
        displayName: d.displayName,
        vendors: vendorsOf(cfg, own),
        failover: failoverOf(cfg, own),
        switched: demoChoice(d.id) !== undefined,
      };
    }),
    vendors: VENDOR_IDS.map((vendor) => ({ vendor, outage: outageOf(vendor) ?? 'up' })),
  };
}
