/**
 * The demo partners' webhook receiver, inside the worker (a worker cannot
 * fetch its own hostname in production, and the demo page's CSP allows only
 * its own origin). It checks each delivery exactly as a partner's server
 * should (Standard Webhooks signature and timestamp) and records only what
 * verifies, so the sales demo can show "signature verified" next to each
 * event and a forged event refused. Signatures are compared in constant time;
 * a delivery whose webhook-id it already recorded (a retry, or a replay of a
 * captured delivery within the timestamp tolerance) is acknowledged and not
 * recorded again. What it accepted is the demo's to keep (deliveries.ts), not
 * the verification's. Mounted under /sandbox, so it exists only while the
 * sandbox is the vendor, and answers only while DEMO is on. The local stack
 * plugs it in as the demo partners' webhook transport (`demoWebhooks`).
 */
import { Hono } from 'hono/tiny';
import type { Env } from '../lib/env';
import type { AppEnv } from '../app-env';
import { config } from '../config';
import { devSecrets } from './dev-secrets';
import { ApiError, errorResponse } from '../lib/errors';
import { VERIFICATION_ID } from '../verifications/verification';
import { decodeWebhookSecret, type WebhookTarget } from '../verifications/webhook-target';
import { webhookSignature } from '../verifications/webhook-signature';
import type { WebhookTransport } from '../ports';
import type { DemoDeliveries } from './deliveries';
import { DEMO_PARTNERS } from './partners';
import { safeEqual } from '../lib/random';
import { systemClock } from '../lib/clock';

/** How far a delivery's timestamp may be from now (the spec's usual tolerance). */
const TOLERANCE_SECONDS = 5 * 60;

export const DEMO_RECEIVER_PATH = '/sandbox/demo-webhooks';

/** Where the demo partners' events go: this receiver, signed with the demo secret. */
export async function demoTarget(env: Env, workerOrigin: string): Promise<WebhookTarget> {
  return { url: `${workerOrigin}${DEMO_RECEIVER_PATH}`, key: decodeWebhookSecret((await devSecrets(env)).demoWebhookSecret)! };
}

const refuse = () => new ApiError(401, 'SIGNATURE_INVALID', 'The webhook signature does not verify.');

/** The receiver's routes, keeping what it accepted in `deliveries` (the demo's Durable Object; a node test's memory). */
export const demoReceiver = (deliveries: (env: Env) => DemoDeliveries) =>
  new Hono<AppEnv>()
    .use(async (c, next) => {
      if (!config(c.env).demo) throw new ApiError(404, 'NOT_FOUND', 'There is nothing here.');
      await next();
    })
    .post(DEMO_RECEIVER_PATH, async (c) => {
      const body = await c.req.text();
      const id = c.req.header('webhook-id') ?? '';
      const ts = Number(c.req.header('webhook-timestamp'));
      const given = (c.req.header('webhook-signature') ?? '').split(' ');
      if (!id || !Number.isInteger(ts) || Math.abs(systemClock() / 1000 - ts) > TOLERANCE_SECONDS) throw refuse();
      const { key } = await demoTarget(c.env, '');
      const expected = await webhookSignature(key, id, ts, body);
      // Constant time: every given signature compared in full, whatever matched.
      let ok = false;
      for (const g of given) ok = safeEqual(g, expected) || ok;
      if (!ok) throw refuse();
      const event = JSON.parse(body) as {
        type: string;
        data: { verificationId: string; result?: { outcome?: string; vendor?: string }; reason?: string; livemode?: boolean };
      };
      await deliveries(c.env).record(event.data.verificationId, {
        webhookId: id,
        type: event.type,
        ...(typeof event.data.result?.outcome === 'string' ? { outcome: event.data.result.outcome } : {}),
        ...(typeof event.data.result?.vendor === 'string' ? { vendor: event.data.result.vendor } : {}),
        ...(event.data.reason ? { reason: event.data.reason } : {}),
        ...(typeof event.data.livemode === 'boolean' ? { livemode: event.data.livemode } : {}),
        signature: 'verified',
        receivedAt: systemClock(),
      });
      return c.body(null, 204);
    })
    .get(`${DEMO_RECEIVER_PATH}/:verificationId`, async (c) => {
      const vid = c.req.param('verificationId');
      if (!VERIFICATION_ID.test(vid)) throw new ApiError(404, 'NOT_FOUND', 'There is nothing here.');
      const [accepted, v] = await Promise.all([deliveries(c.env).list(vid), c.var.ports.verifications.execute(vid, { type: 'read' })]);
      return c.json({ deliveries: accepted, webhook: v?.webhook.state ?? 'none' });
    })
    // Called in-process by the delivery queue too: its refusals are answers, not throws.
    .onError((err, c) =>
      errorResponse(c, err instanceof ApiError ? err : new ApiError(400, 'VALIDATION_FAILED', 'The delivery could not be read.')),
    );

/**
 * The demo partners' webhook transport (plugged into the delivery by
 * entry/local-app.ts): while DEMO is on, a demo partner's events go to this
 * receiver, in process; any other partner's have no route here.
 */
export const demoWebhooks =
  (receiver: Pick<Hono<AppEnv>, 'fetch'>): WebhookTransport =>
  async (env, partner, workerOrigin) =>
    partner.source === 'plugged' && DEMO_PARTNERS.some((d) => d.id === partner.id) && config(env).demo
      ? { target: await demoTarget(env, workerOrigin), send: async (url, init) => receiver.fetch(new Request(url, init), env) }
      : undefined;
