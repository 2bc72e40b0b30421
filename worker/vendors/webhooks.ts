/**
 * Vendor events in: `POST /vendor-webhooks/stripe/{partnerId}`, the endpoint a
 * partner registers in its Stripe account (docs/vendors.md "Vendor
 * webhooks"). The signature is checked as Stripe signs (the adapter's
 * `verifyWebhook`, 300 s tolerance): a bad one is `400 SIGNATURE_INVALID` and
 * changes nothing. A valid event about a verification of this partner only
 * makes the worker ask Stripe sooner (the retrieved session decides, never
 * the event's body); any other valid event (an unknown session, a type we do
 * not use) is 200 and ignored, so Stripe stops sending it.
 */
import { Hono } from 'hono/tiny';
import type { AppEnv } from '../app-env';
import { ApiError, errorName } from '../lib/errors';
import { log } from '../lib/log';
import { partnerById } from '../partners/resolve';
import { PARTNER_ID } from '../partners/partner';
import { use } from './adapter';
import { stripeFor } from './for-partner';

/** Stripe's events are small; anything larger is not one. */
const MAX_EVENT_BYTES = 64 * 1024;

const nothingHere = () => new ApiError(404, 'NOT_FOUND', 'There is nothing here.');

export const vendorWebhooks = new Hono<AppEnv>();

vendorWebhooks.post('/vendor-webhooks/stripe/:partnerId', async (c) => {
  const partnerId = c.req.param('partnerId');
  if (!PARTNER_ID.test(partnerId)) throw nothingHere();
  const partner = await partnerById(c.env, c.var.ports, c.req.url, partnerId);
  let executionCtx;
  try {
    executionCtx = c.executionCtx;
  } catch {
    executionCtx = undefined; // app.request() in node tests has no execution context
  }
  const stripe = partner && stripeFor(c.env, c.var.ports, partner, new URL(c.req.url).origin, c.var.clock, executionCtx);
  if (!partner || !stripe?.capabilities.vendorWebhooks) throw nothingHere();
  const body = await c.req.text();
  if (body.length > MAX_EVENT_BYTES) throw new ApiError(413, 'PAYLOAD_TOO_LARGE', 'The body is larger than a Stripe event.');
  const event = await use(stripe, 'verifyWebhook')(c.req.raw.headers, body);
  if (!event) throw new ApiError(400, 'SIGNATURE_INVALID', 'The Stripe-Signature header does not verify.');
  const v = event.subject && event.reference ? await c.var.ports.verifications.execute(event.reference, { type: 'read' }) : undefined;
  if (!v || v.partnerId !== partner.id) return c.json({ received: true, ignored: true });
  try {
    // The event is a hint: the worker asks Stripe (at once, within its polling budget); the session it retrieves decides.
    await c.var.ports.verifications.execute(v.id, { type: 'observe', hint: {} });
  } catch (err) {
    // A vendor that cannot answer now is asked again on the verification's schedule; Stripe need not resend.
    log.warn('vendor_webhook_observe_failed', { verificationId: v.id, error: errorName(err) });
  }
  return c.json({ received: true });
});
