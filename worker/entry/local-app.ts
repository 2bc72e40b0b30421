/**
 * The local stack's composition root: the product's app (../app.ts) with the
 * sandbox (the vendor's double, top-level sandbox/) and the demo's pieces
 * plugged in. `npm start`, `wrangler dev`, the tests and a deliberate
 * `DEMO=on` deployment run this; production (entry/production.ts) does not
 * import it. The sandbox runs in process: the vendor client calls
 * `sandbox.fetch` directly (no network, no second worker), and HTTP callers
 * reach it under /sandbox through the guard below.
 */
/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- the demo's sub-apps are hono/tiny apps: hono's own Hono class, reached through another entry point */
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { sandbox } from '../../sandbox/app';
import { DEFAULT_CREDENTIALS, hasOwnCredentials } from '../../sandbox/config';
import { STRIPE_SANDBOX_KEY, STRIPE_SANDBOX_WEBHOOK_SECRET } from '../../sandbox/stripe/app';
import { DEV_SEALING_KEY } from '../partners/sealing';
import { createApp, MAX_BODY_BYTES } from '../app';
import type { Env } from '../lib/env';
import type { Plugins, PortOverrides, SandboxDefaults } from '../ports';
import { demoReceiver, demoWebhooks } from '../demo/demo-receiver';
import { demoPartnerSource } from '../demo/demo-partners';
import { devSecrets } from '../demo/dev-secrets';
import { durableDemoDeliveries, type DemoDeliveries } from '../demo/deliveries';
import { home } from '../demo/home';
import { withOutages } from '../demo/vendor-switch';
import { demoVendorRoutes } from '../demo/vendor-routes';
import { demoServer } from '../demo/server-keys';
import type { AppEnv } from '../app-env';
import type { Clock } from '../lib/clock';
import { ApiError } from '../lib/errors';
import { clientIp, enforce, ipKey } from '../lib/limits';
import { fromThisMachine } from '../lib/local-client';
import { config, isDeployed, trustedOwnOrigin } from '../config';
import { resolvePartner } from '../partners/resolve';
import { sandboxOutcomes } from './local-sandbox-outcomes';

const SANDBOX_DEFAULTS: SandboxDefaults = {
  customerId: DEFAULT_CREDENTIALS.customers[0]!.customerId,
  apiKey: DEFAULT_CREDENTIALS.customers[0]!.apiKey as string,
  sealingKey: DEV_SEALING_KEY,
  stripeKey: STRIPE_SANDBOX_KEY,
  stripeWebhookSecret: STRIPE_SANDBOX_WEBHOOK_SECRET,
};

/**
 * What the local stack plugs into the product (production plugs in none of
 * it): the sandbox, reached in process by the vendor client while it is the
 * vendor, with its default credentials and the development sealing key; a
 * secret source (the development secrets it signs with while the real ones
 * are unset); a partner source (the demo partners, with their development
 * server keys); a webhook transport (the demo partners' receiver inside the
 * worker, keeping what it accepted in `deliveries`). The app's requests, the
 * Durable Objects' alarms and the queue consumer (entry/local.ts) all get
 * these. Its routes (the demo home, the sandbox, the receiver, the demo's
 * server) are mounted below.
 */
export function localPlugins(deliveries: (env: Env) => DemoDeliveries = durableDemoDeliveries): Plugins {
  return {
    // A double the demo took down fails as a vendor's outage does (demo/vendor-switch.ts).
    inProcessVendor: { path: '/sandbox', fetch: withOutages(async (request, env, ctx) => sandbox.fetch(request, env, ctx)) },
    sandboxDefaults: SANDBOX_DEFAULTS,
    devSecrets,
    partnerSource: demoPartnerSource(SANDBOX_DEFAULTS),
    webhookTransport: demoWebhooks(demoReceiver(deliveries)),
  };
}

// The sandbox exists only while it is the vendor. Its vendor API answers
// HTTP callers with the documented default credentials from this machine only
// (a laptop: the connection's address, lib/local-client.ts); a deployed sandbox (a sales demo) answers them only with
// SANDBOX_CREDENTIALS set on purpose, since anyone could read every visitor's
// entities with the public default key. The worker's own calls reach the
// sandbox in-process (vendors/for-partner.ts), not through here, and keep working;
// the hosted-flow pages and a visitor's own outbox stay.
const SANDBOX_VENDOR_API = /^\/sandbox\/(idv|v2|stripe\/v1)\//;

function mountSandbox(app: Hono<AppEnv>): void {
  app.use('/sandbox/*', async (c, next) => {
    // Deployed without DEMO=on the sandbox is no vendor (the /api routes fail closed): nothing here either.
    if (!c.var.config.vendor.sandbox || (isDeployed(c.var.config, c.req.url) && !c.var.config.demoExplicit))
      throw new ApiError(404, 'NOT_FOUND', 'There is nothing here.');
    // From this machine by the connection's address, not the Host header (lib/local-client.ts).
    if (SANDBOX_VENDOR_API.test(c.req.path) && !hasOwnCredentials(c.env) && !fromThisMachine(c.var.config, c.req.url, c.req.raw.headers)) {
      throw new ApiError(404, 'NOT_FOUND', 'There is nothing here.');
    }
    // What writes (the vendor API on loopback, the hosted flow's submit, the
    // demo's receiver) spends a per-client budget like /api's; reading pages
    // and the demo's polling of its own outbox do not.
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD')
      await enforce(c.env, 'RL_IP', `sandbox ${ipKey(clientIp(c.req.raw.headers))}`, 'requests');
    // The worker's own calls reach the sandbox in-process, past this point; an
    // HTTP caller's redirect addresses are held to the origins the worker
    // allows: a partner's page or the worker's own.
    const env = c.env;
    const ports = c.var.ports;
    c.set('sandboxHttpCaller', async (origin, requestUrl) => {
      // The request's own origin where the worker's is not configured (as the demo partners take it).
      if (origin === (trustedOwnOrigin(config(env), requestUrl) ?? new URL(requestUrl).origin)) return true;
      return Boolean(await resolvePartner(env, ports, requestUrl, origin));
    });
    // The Stripe double's events go where a partner's Stripe account would send them: its
    // /vendor-webhooks/stripe/{partnerId}, in process (the verification names the partner).
    c.set('stripeWebhook', async (delivery) => {
      const v = delivery.clientReferenceId
        ? await ports.verifications.execute(delivery.clientReferenceId, { type: 'read' }).catch(() => undefined)
        : undefined;
      if (!v) return;
      const request = new Request(`${delivery.origin}/vendor-webhooks/stripe/${encodeURIComponent(v.partnerId)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Stripe-Signature': delivery.signature },
        body: delivery.body,
      });
      let ctx: Parameters<typeof app.fetch>[2];
      try {
        ctx = c.executionCtx;
      } catch {
        ctx = undefined; // app.request() in node tests
      }
      const answer = await app.fetch(request, env, ctx);
      await answer.body?.cancel();
    });
    await next();
  });
  app.use(
    '/sandbox/*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_BODY_BYTES / 1024} KB.`);
      },
    }),
  );
  app.route('/', sandboxOutcomes);
  app.route('/', sandbox);
}

/** What a node test gives the local app: its twins of the stores, and of the demo's deliveries. */
export interface LocalParts {
  ports?: PortOverrides;
  deliveries?: (env: Env) => DemoDeliveries;
  /** The routes' clock (tests control it); the runtime's by default. */
  clock?: Clock;
}

/** The local stack's app: the product, the sandbox, the demo. */
export function localApp({ ports = {}, deliveries = durableDemoDeliveries, clock }: LocalParts = {}) {
  const plugins = localPlugins(deliveries);
  return createApp({
    ...(clock ? { clock } : {}),
    ports: (env) => ({ ...plugins, ...(typeof ports === 'function' ? ports(env) : ports) }),
    mount: (app) => {
      app.route('/', home);
      mountSandbox(app);
      app.route('/', demoReceiver(deliveries));
      app.route('/', demoServer(app));
      app.route('/', demoVendorRoutes);
    },
  });
}

export const app = localApp();
