/**
 * The `stripe` adapter: Stripe Identity's VerificationSession, one session
 * per attempt (so an answer is always about its own attempt), its
 * `client_reference_id` our verificationId. Stripe texts nothing, has no
 * entity search and no entity to reuse; it cancels and redacts, signs its
 * events, and hands out a short-lived hosted `url` on every retrieve while
 * the session requires input — so the product keeps none and asks
 * `openUrl` when the person opens the link.
 */
import {
  cappedExpiry,
  CapabilityUnavailableError,
  VendorMismatchError,
  type AdapterContext,
  type Capabilities,
  type LinkRequest,
  type VendorAdapter,
  type VendorEvent,
  type VendorLink,
  type VendorRef,
} from '../adapter';
import { VendorError } from '../errors';
import { badAnswer } from '../http';
import { createStripeClient, STRIPE_API, type StripeSession } from './client';
import { answerOf } from './mapping';
import { verifyStripeSignature } from '../../../rules/stripe-signature';

/** How long a session's hosted flow stays usable: its client secret's 24 hours (the url itself is fetched fresh). */
const SESSION_LIFE_MS = 24 * 3_600_000;

export interface StripeSettings {
  /** STRIPE_API_BASE (default Stripe's API). */
  base?: string;
  /** STRIPE_SECRET_KEY. */
  secretKey: string;
  /** STRIPE_WEBHOOK_SECRET (`whsec_…`): without it, no vendor webhooks. */
  webhookSecret?: string;
  /** STRIPE_VERIFICATION_TYPE: `document` (default) or `id_number`. */
  verificationType?: 'document' | 'id_number';
}

/** A key's mode, as Stripe's prefixes say: live keys `sk_live_`/`rk_live_`; test keys `sk_test_`/`rk_test_`. */
export const isLiveStripeKey = (key: string) => /^(sk|rk)_live_/.test(key);
export const isStripeKey = (key: string) => /^(sk|rk)_(live|test)_[A-Za-z0-9]+$/.test(key);

const EVENT_PREFIX = 'identity.verification_session.';

export function stripeAdapter(ctx: AdapterContext, settings: StripeSettings): VendorAdapter {
  const client = createStripeClient(ctx, { base: settings.base ?? STRIPE_API, secretKey: settings.secretKey });
  const livemode = isLiveStripeKey(settings.secretKey);
  const capabilities: Capabilities = {
    sms: false,
    entitySearch: false,
    entityReuse: false,
    cancelAtVendor: true,
    redactAtVendor: true,
    vendorWebhooks: Boolean(settings.webhookSecret),
    person: false,
  };

  /** A session as asked for: the same id, the key's mode. */
  function own(ref: VendorRef, s: StripeSession): StripeSession {
    if (s.id !== ref.subject) throw new VendorMismatchError('stripe');
    if (s.livemode !== livemode) throw badAnswer(200);
    return s;
  }

  return {
    id: 'stripe',
    livemode,
    capabilities,

    async createLink(request: LinkRequest): Promise<VendorLink> {
      // Stripe has no entity to make a second link for: a next attempt is a new session.
      if (request.subject !== undefined) throw new CapabilityUnavailableError('stripe', 'entityReuse');
      const s = await client.create({
        type: settings.verificationType ?? 'document',
        client_reference_id: request.verificationId,
        return_url: request.returnUrl,
        metadata: { verification_id: request.verificationId },
      });
      if (s.client_reference_id !== request.verificationId || s.livemode !== livemode) throw badAnswer(200);
      if (typeof s.url !== 'string' || !/^https?:\/\//.test(s.url)) throw badAnswer(200);
      return {
        ref: { vendor: 'stripe', subject: s.id, check: s.id, linkedAt: ctx.now() },
        url: s.url,
        expiresAt: cappedExpiry(ctx, s.created * 1000 + SESSION_LIFE_MS),
        smsSent: false,
      };
    },

    async latestResult(ref, options = {}) {
      let retrieved: StripeSession;
      try {
        retrieved = await client.retrieve(ref.subject);
      } catch (err) {
        // A session Stripe does not know (yet) has no answer: nothing is credited, the poll goes on.
        if (err instanceof VendorError && err.fault.kind === 'status' && err.fault.status === 404)
          return { state: 'pending', vendorStatus: 'resource_missing' };
        throw err;
      }
      const s = own(ref, retrieved);
      if (options.priorChecks?.includes(s.id)) return { state: 'pending', check: s.id, vendorStatus: s.status };
      return answerOf(s);
    },

    async health() {
      const started = ctx.now();
      await client.ping();
      return { ok: true, ms: ctx.now() - started };
    },

    async openUrl(ref) {
      const s = own(ref, await client.retrieve(ref.subject, 'open'));
      return s.status === 'requires_input' && typeof s.url === 'string' ? s.url : undefined;
    },

    async cancel(ref) {
      own(ref, await client.cancel(ref.subject));
    },

    async redact(ref) {
      own(ref, await client.redact(ref.subject));
    },

    async verifyWebhook(headers: Headers, body: string): Promise<VendorEvent | undefined> {
      if (!settings.webhookSecret) throw new CapabilityUnavailableError('stripe', 'vendorWebhooks');
      if (!(await verifyStripeSignature(settings.webhookSecret, headers.get('Stripe-Signature'), body, ctx.now()))) return undefined;
      let event: unknown;
      try {
        event = JSON.parse(body);
      } catch {
        return { id: '', type: '' };
      }
      const e = (typeof event === 'object' && event !== null ? event : {}) as {
        id?: unknown;
        type?: unknown;
        data?: { object?: { id?: unknown; object?: unknown; client_reference_id?: unknown } };
      };
      const id = typeof e.id === 'string' ? e.id : '';
      const type = typeof e.type === 'string' ? e.type : '';
      const object = e.data?.object;
      const subject =
        type.startsWith(EVENT_PREFIX) && object?.object === 'identity.verification_session' && typeof object.id === 'string'
          ? object.id
          : undefined;
      const reference = subject && typeof object?.client_reference_id === 'string' ? object.client_reference_id : undefined;
      return { id, type, ...(subject ? { subject } : {}), ...(reference ? { reference } : {}) };
    },
  };
}
