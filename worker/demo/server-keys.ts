/**
 * The demo partners' side of the partner's server API, while the sandbox is
 * the vendor and DEMO is on:
 *   - `GET /sandbox/demo/server-keys`: their development server keys (made on
 *     first use, kept with the other development secrets), on a loopback host
 *     only (a laptop): the demo console and `npm run partners -- dev-keys`
 *     show them. A deployed demo never hands them out.
 *   - `POST /sandbox/demo/start`: the demo page's "start from the server":
 *     the worker plays the partner's server and calls `POST /v1/verifications`
 *     (in process, with the demo partner's key) for the page's partner, so the
 *     page gets a client secret the way a partner's page would from its own
 *     server.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';
import { fromThisMachine } from '../lib/local-client';
import { normaliseOrigin } from '../lib/origins';
import { config, trustedOwnOrigin } from '../config';
import { readJson } from '../lib/validation';
import { demoServerKeys } from './demo-partners';
import { DEMO_PARTNERS } from './partners';
import * as z from 'zod/mini';

const nothingHere = () => new ApiError(404, 'NOT_FOUND', 'There is nothing here.');

const StartRequest = z.strictObject({
  customerRef: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
});

/**
 * The demo's routes. `product` is the whole app the local entry built: the
 * demo partner's server calls `/v1` through it, as a partner's server would
 * through the network (its configuration, guards and middleware included).
 */
export const demoServer = (product: Pick<Hono<AppEnv>, 'fetch'>) =>
  new Hono<AppEnv>()
    .use('/sandbox/demo/*', async (c, next) => {
      if (!c.var.config.vendor.sandbox || !c.var.config.demo) throw nothingHere();
      await next();
      c.header('Cache-Control', 'no-store');
    })
    .get('/sandbox/demo/server-keys', async (c) => {
      // From this machine by the connection's address, not the Host header (lib/local-client.ts).
      if (!fromThisMachine(config(c.env), c.req.url, c.req.raw.headers)) throw nothingHere();
      const keys = (await demoServerKeys(c.env)) ?? {};
      // On a loopback host (checked above): the request's origin is trusted.
      const own = new URL(trustedOwnOrigin(c.var.config, c.req.url)!);
      return c.json({
        partners: DEMO_PARTNERS.map((d) => ({
          partnerId: d.id,
          displayName: d.displayName,
          origin: `${own.protocol}//${d.host}${own.port ? `:${own.port}` : ''}`,
          serverKey: keys[d.id],
        })),
      });
    })
    .post('/sandbox/demo/start', async (c) => {
      const origin = normaliseOrigin(c.req.header('Origin') ?? '');
      // The demo partners are the local stack's partner source.
      const partner = origin ? c.var.ports.partnerSource?.byOrigin(c.env, c.req.url, origin) : undefined;
      if (!partner) throw new ApiError(403, 'ORIGIN_NOT_ALLOWED', 'This site is not a demo partner.');
      const { data } = await readJson(c, StartRequest);
      const key = (await demoServerKeys(c.env))?.[partner.id];
      if (!key) throw nothingHere();
      let ctx;
      try {
        ctx = c.executionCtx;
      } catch {
        ctx = undefined;
      }
      // What a partner's server does: POST /v1/verifications with its server key (here in process).
      const res = await product.fetch(
        new Request(new URL('/v1/verifications', c.req.url), {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ customerRef: data.customerRef, sms: true }),
        }),
        c.env,
        ctx,
      );
      return new Response(res.body, { status: res.status, headers: { 'Content-Type': 'application/json' } });
    });
