/**
 * A partner's adapters, built from the worker's configuration: its vendors
 * in priority order (`vendorsOf`: the partner's own `vendors`, from the
 * registry or the demo's switch, else the deployment's KYC_VENDOR), idv with
 * the partner's credentials and Stripe with the partner's own key and
 * signing secret where its registry record has them, else the deployment's
 * STRIPE_* settings. The doubles are called in process (the `inProcessVendor` port,
 * on the worker's own origin). Every route and the verification's polls
 * reach a vendor through `adapterFor` (never a vendor's client directly).
 */
import type { Context, ExecutionContext } from 'hono';
import { config, type Config } from '../config';
import type { AppEnv } from '../app-env';
import type { Env } from '../lib/env';
import { systemClock, type Clock } from '../lib/clock';
import type { Ports } from '../ports';
import { emitOne, type VendorOperation, type WaitUntil } from '../ops/events';
import type { FailoverMode, Partner } from '../partners/partner';
import type { AdapterContext, AdapterOperation, VendorAdapter, VendorId } from './adapter';
import { VendorError } from './errors';
import { stripeAdapter, type StripeSettings } from './stripe/adapter';
import { idvAdapter } from './idv/adapter';

/**
 * The Stripe settings `partner` uses, or undefined when Stripe is none of its
 * vendors. `anyOrder`: for a verification already made with Stripe, which
 * keeps it even after KYC_VENDOR no longer names it (while its settings are there).
 */
export function stripeSettingsOf(
  cfg: Pick<Config, 'vendors' | 'secrets'>,
  ports: Pick<Ports, 'inProcessVendor' | 'sandboxDefaults'>,
  partner: { id?: string; vendors?: readonly VendorId[] | undefined; stripe?: Partner['stripe'] },
  origin: string,
  anyOrder = false,
): StripeSettings | undefined {
  if (!anyOrder && !vendorsOf(cfg, partner).includes('stripe')) return undefined;
  const double = cfg.vendors.stripe.sandbox;
  const base = double ? (ports.inProcessVendor ? `${origin}${ports.inProcessVendor.path}/stripe` : undefined) : cfg.vendors.stripe.base;
  // Each its own: a partner's key with the deployment's signing secret is one endpoint of its account, and the other way round.
  const secretKey = partner.stripe?.secretKey ?? cfg.secrets.stripeSecretKey ?? (double ? ports.sandboxDefaults?.stripeKey : undefined);
  const webhookSecret =
    partner.stripe?.webhookSecret ?? cfg.secrets.stripeWebhookSecret ?? (double ? ports.sandboxDefaults?.stripeWebhookSecret : undefined);
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
  onStatus?: (status: number) => void,
): AdapterContext {
  const cfg = config(env);
  const inProcess = ports.inProcessVendor;
  return {
    now: clock,
    linkMaxMs: cfg.outcomes.lifecycle.linkMaxMs,
    timeoutMs: cfg.vendor.timeoutMs,
    fetch: async (request) => {
      // A deployment without the doubles never gets here with one: its configuration guard refuses the setting.
      if (double && !inProcess) throw new Error('This deployment has no sandbox: set the vendor base URL.');
      const response = double && inProcess ? await inProcess.fetch(request, env, ctx) : await fetch(request);
      onStatus?.(response.status);
      return response;
    },
  };
}

/**
 * The vendors `partner` uses, in priority order: its own (a registry
 * record's `vendors`, the demo's switch) when it has them, else the
 * deployment's KYC_VENDOR (the operator's own credentials, no partner,
 * included). The partner's own choice wins (docs/partners.md).
 */
export function vendorsOf(cfg: Pick<Config, 'vendors'>, partner: { vendors?: readonly VendorId[] | undefined }): VendorId[] {
  if (partner.vendors?.length) return [...partner.vendors];
  return cfg.vendors.order.length ? [...cfg.vendors.order] : ['idv'];
}

/**
 * Whether a link for `partner` may go to its next vendor on a vendor fault:
 * its own `failover` (registry, the demo's switch), else VENDOR_FAILOVER; and
 * only with a second vendor.
 */
export function failoverOf(
  cfg: Pick<Config, 'vendors'>,
  partner: { vendors?: readonly VendorId[] | undefined; failover?: FailoverMode | undefined },
): FailoverMode {
  const mode = partner.failover ?? cfg.vendors.failover ?? 'off';
  return mode === 'before_start' && vendorsOf(cfg, partner).length > 1 ? 'before_start' : 'off';
}

/** The operator's names of an adapter's operations (`vendor.call`, our words: ops/events.ts reads the first names too). */
const CALL_NAME: Record<AdapterOperation, VendorOperation> = {
  link: 'vendor-link',
  result: 'result',
  health: 'vendor-health',
  search: 'search',
  open: 'open',
  cancel: 'cancel',
  redact: 'redact',
};

/** How an adapter is asked on someone's behalf. */
export interface AdapterOptions {
  /** The worker's own origin: the doubles live there, and derive their hosted-flow links from it. */
  origin: string;
  clock?: Clock;
  ctx?: ExecutionContext;
  /** Told each answer's HTTP status (a request's log line). */
  onStatus?: (status: number) => void;
  /** Whose call it is, for the operator's `vendor.call` event (none: the operator's own). */
  partnerId?: string;
  /** Where the event's send may run after the answer. */
  waitUntil?: WaitUntil;
}

/**
 * `partner`'s adapter for `vendor`. A vendor the partner no longer has (its
 * settings changed under a verification made with it) is refused as the
 * vendor refusing our credentials would be: nobody may ask on its behalf.
 */
export function adapterFor(
  env: Env,
  ports: Pick<Ports, 'inProcessVendor' | 'sandboxDefaults'>,
  partner: Pick<Partner, 'customerId' | 'childId' | 'apiKey' | 'flowId' | 'vendors' | 'stripe'> & { id?: string },
  vendor: VendorId,
  { origin, clock = systemClock, ctx, onStatus, partnerId, waitUntil }: AdapterOptions,
): VendorAdapter {
  const cfg = config(env);
  const onCall = (operation: AdapterOperation, outcome: Parameters<NonNullable<AdapterContext['onCall']>>[1], ms: number) =>
    emitOne(env, waitUntil ?? ctx, partnerId, { type: 'vendor.call', vendor, operation: CALL_NAME[operation], outcome, ms });
  if (vendor === 'stripe') {
    const settings = stripeSettingsOf(cfg, ports, partner, origin, true);
    if (!settings) throw new VendorError({ kind: 'status', status: 403 });
    return stripeAdapter({ ...adapterContext(env, ports, cfg.vendors.stripe.sandbox, clock, ctx, onStatus), onCall }, settings);
  }
  const v = cfg.vendor;
  return idvAdapter(
    { ...adapterContext(env, ports, v.sandbox, clock, ctx, onStatus), onCall },
    {
      baseUrl: v.baseUrl ?? `${origin}${ports.inProcessVendor?.path ?? ''}`,
      apiKey: partner.apiKey,
      customerId: partner.customerId,
      ...(partner.childId ? { childId: partner.childId } : {}),
      channel: v.channel,
      searchPath: v.searchPath,
      ...(partner.flowId ? { flowId: partner.flowId } : {}),
      ...(v.provider ? { provider: v.provider } : {}),
      livemode: !v.sandbox,
    },
  );
}

/** `adapterFor` in a request: its origin, its execution context, its log line's vendor status and its partner's events. */
export function adapterOf(
  c: Context<AppEnv>,
  partner: Parameters<typeof adapterFor>[2] & { id?: string },
  vendor: VendorId,
): VendorAdapter {
  let ctx: ExecutionContext | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    ctx = undefined; // app.request() in node tests has no execution context
  }
  return adapterFor(c.env, c.var.ports, partner, vendor, {
    origin: new URL(c.req.url).origin,
    clock: c.var.clock,
    ...(ctx ? { ctx } : {}),
    onStatus: (status) => c.set('vendorStatus', status),
    ...((partner.id ?? c.get('partner')?.id) ? { partnerId: partner.id ?? c.get('partner')!.id } : {}),
  });
}

/** `partner`'s Stripe adapter, or undefined when Stripe is none of its vendors. */
export function stripeFor(
  env: Env,
  ports: Pick<Ports, 'inProcessVendor' | 'sandboxDefaults'>,
  partner: Pick<Partner, 'id' | 'vendors' | 'stripe'>,
  origin: string,
  clock: Clock = systemClock,
  ctx?: ExecutionContext,
): VendorAdapter | undefined {
  const cfg = config(env);
  const settings = stripeSettingsOf(cfg, ports, partner, origin);
  return settings ? stripeAdapter(adapterContext(env, ports, cfg.vendors.stripe.sandbox, clock, ctx), settings) : undefined;
}
