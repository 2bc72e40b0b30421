/**
 * A partner's adapters, built from the worker's configuration: the
 * environment's vendors (KYC_VENDOR, STRIPE_*) for the environment partner
 * and the demo partners. The doubles are called in process (the
 * `inProcessVendor` port, on the worker's own origin) as the idv client's
 * sandbox is. Registry partners' own vendors (`vendors` sealed in the
 * registry) are not read here yet: they are `idv` partners.
 */
import type { ExecutionContext } from 'hono';
import { config, type Config } from '../config';
import type { Env } from '../lib/env';
import { systemClock, type Clock } from '../lib/clock';
import type { Ports } from '../ports';
import { DEMO_PARTNER_IDS, ENVIRONMENT_PARTNER_ID, type Partner } from '../partners/partner';
import type { AdapterContext, VendorAdapter } from './adapter';
import { stripeAdapter, type StripeSettings } from './stripe/adapter';

/** Whether `partner` takes the environment's vendor settings. */
export const usesEnvironmentVendors = (partner: Pick<Partner, 'id'>) =>
  partner.id === ENVIRONMENT_PARTNER_ID || (DEMO_PARTNER_IDS as readonly string[]).includes(partner.id);

/** The Stripe settings `partner` uses, or undefined when Stripe is none of its vendors. */
export function stripeSettingsOf(
  cfg: Pick<Config, 'vendors' | 'secrets'>,
  ports: Pick<Ports, 'inProcessVendor' | 'sandboxDefaults'>,
  partner: Pick<Partner, 'id'>,
  origin: string,
): StripeSettings | undefined {
  if (!cfg.vendors.order.includes('stripe') || !usesEnvironmentVendors(partner)) return undefined;
  const double = cfg.vendors.stripe.sandbox;
  const base = double ? (ports.inProcessVendor ? `${origin}${ports.inProcessVendor.path}/stripe` : undefined) : cfg.vendors.stripe.base;
  const secretKey = cfg.secrets.stripeSecretKey ?? (double ? ports.sandboxDefaults?.stripeKey : undefined);
  const webhookSecret = cfg.secrets.stripeWebhookSecret ?? (double ? ports.sandboxDefaults?.stripeWebhookSecret : undefined);
  if (!base || !secretKey) return undefined; // the configuration guard names what is missing
  return {
    base,
    secretKey,
    ...(webhookSecret ? { webhookSecret } : {}),
    verificationType: cfg.vendors.stripe.verificationType ?? 'document',
  };
}

/** How an adapter's requests leave: in process into the doubles, or over the network. */
export function adapterContext(
  env: Env,
  ports: Pick<Ports, 'inProcessVendor'>,
  double: boolean,
  clock: Clock = systemClock,
  ctx?: ExecutionContext,
): AdapterContext {
  const cfg = config(env);
  const inProcess = ports.inProcessVendor;
  return {
    now: clock,
    linkMaxMs: cfg.outcomes.lifecycle.linkMaxMs,
    timeoutMs: cfg.vendor.timeoutMs,
    fetch: async (request) => (double && inProcess ? inProcess.fetch(request, env, ctx) : fetch(request)),
  };
}

/** `partner`'s Stripe adapter, or undefined when Stripe is none of its vendors. */
export function stripeFor(
  env: Env,
  ports: Pick<Ports, 'inProcessVendor' | 'sandboxDefaults'>,
  partner: Pick<Partner, 'id'>,
  origin: string,
  clock: Clock = systemClock,
  ctx?: ExecutionContext,
): VendorAdapter | undefined {
  const cfg = config(env);
  const settings = stripeSettingsOf(cfg, ports, partner, origin);
  return settings ? stripeAdapter(adapterContext(env, ports, cfg.vendors.stripe.sandbox, clock, ctx), settings) : undefined;
}
