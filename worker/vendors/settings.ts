/**
 * What the configuration guard says about the vendor settings (KYC_VENDOR,
 * VENDOR_FAILOVER, STRIPE_*): each problem names its setting, never its
 * value. One deployment is one mode: a double or a test key beside a live
 * vendor, or a live Stripe key beside a double or the demo, is refused.
 */
import type { Config } from '../config';
import { isLiveStripeKey } from '../config';
import type { Issue } from '../lib/errors';
import { isLoopbackHost } from '../lib/origins';
import type { VendorId } from './adapter';

/** Whether vendor `v` is a double (the sandbox, the Stripe double) in this configuration. */
export function isDouble(cfg: Pick<Config, 'vendor' | 'vendors'>, v: VendorId): boolean {
  return v === 'idv' ? cfg.vendor.sandbox : cfg.vendors.stripe.sandbox;
}

/** Whether vendor `v` gives real outcomes: a real vendor with live credentials. */
export function isLive(cfg: Pick<Config, 'vendor' | 'vendors' | 'secrets'>, v: VendorId): boolean {
  if (isDouble(cfg, v)) return false;
  return v === 'idv' || isLiveStripeKey(cfg.secrets.stripeSecretKey);
}

/** A Stripe secret or restricted key, test or live. */
export const STRIPE_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9]+$/;

/**
 * What is wrong with a registry partner's own Stripe key in this deployment,
 * or undefined. One deployment is one mode: a live key where outcomes are
 * tests (a double, a test key, the sandbox) is refused, and a test key where
 * they are real. `live`: the deployment's mode; undefined when unknown (the
 * CLI against a deployment whose own key it cannot read), judged by the worker.
 */
export function partnerStripeKeyProblem(key: string, stripeDouble: boolean, live: boolean | undefined): string | undefined {
  if (!STRIPE_KEY.test(key)) return 'must be a Stripe secret or restricted key (sk_… or rk_…, test or live)';
  const liveKey = isLiveStripeKey(key);
  if (liveKey && stripeDouble) return 'is a live key beside the Stripe double (one deployment is one mode)';
  if (live === undefined || liveKey === live) return undefined;
  return liveKey
    ? 'is a live key in a test deployment (one deployment is one mode)'
    : 'is a test key in a live deployment (one deployment is one mode)';
}

function httpsOrLoopback(url: string | undefined): boolean {
  try {
    const u = new URL(url ?? '');
    return u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname));
  } catch {
    return false;
  }
}

/**
 * Problems of the vendor settings. `hasDoubles`: this deployment composed the
 * sandbox (and with it the Stripe double); `deployed`: it runs off loopback;
 * `hasRegistry`: it has a partner registry (the PARTNERS binding).
 */
export function vendorSettingsProblems(
  cfg: Pick<Config, 'vendor' | 'vendors' | 'secrets' | 'demo' | 'demoExplicit' | 'allowedOrigins'>,
  hasDoubles: boolean,
  deployed: boolean,
  hasRegistry = false,
): Issue[] {
  const issues: Issue[] = [];
  const add = (issueLocation: string, issue: string) => issues.push({ issue, issueLocation });
  const { order, unknown, failover, stripe } = cfg.vendors;
  if (unknown.length) add('KYC_VENDOR', 'names a vendor this worker does not have: a comma list of idv, stripe in priority order');
  if (failover === undefined) add('VENDOR_FAILOVER', 'must be off or before_start');
  // Judged for the environment's partner only: with a registry and no
  // ALLOWED_ORIGINS it is the default of registry partners, each judged by its
  // own `vendors` (`npm run partners` refuses one with a single vendor).
  else if (failover === 'before_start' && order.length < 2 && (cfg.allowedOrigins.length > 0 || !hasRegistry))
    add('VENDOR_FAILOVER', 'before_start needs a second vendor in KYC_VENDOR');
  if (order.includes('stripe')) {
    const key = cfg.secrets.stripeSecretKey;
    if (!stripe.verificationType) add('STRIPE_VERIFICATION_TYPE', 'must be document or id_number');
    if (stripe.sandbox) {
      if (!hasDoubles)
        add('STRIPE_API_BASE', "is the Stripe double, which this deployment does not have: set Stripe's API root or leave it unset");
      else if (deployed && !cfg.demoExplicit)
        add('STRIPE_API_BASE', 'is the Stripe double: a deployed worker uses it only with DEMO=on set explicitly');
      if (isLiveStripeKey(key)) add('STRIPE_SECRET_KEY', 'is a live key beside the Stripe double');
      else if (key !== undefined && !/^(sk|rk)_test_/.test(key))
        add('STRIPE_SECRET_KEY', 'must be a Stripe test key (sk_test_ or rk_test_) for the double');
    } else {
      if (!key) add('STRIPE_SECRET_KEY', 'is not set (required with Stripe)');
      else if (!STRIPE_KEY.test(key)) add('STRIPE_SECRET_KEY', 'must be a Stripe secret or restricted key (sk_… or rk_…, test or live)');
      else if (isLiveStripeKey(key) && cfg.demo)
        add('STRIPE_SECRET_KEY', 'is a live key while DEMO is on (the demo partners would verify real people)');
      if (!httpsOrLoopback(stripe.base)) add('STRIPE_API_BASE', 'must be an https URL (http only to a loopback host), or "sandbox"');
    }
    const secret = cfg.secrets.stripeWebhookSecret;
    if (secret !== undefined && !/^whsec_\S+$/.test(secret)) add('STRIPE_WEBHOOK_SECRET', "must be Stripe's signing secret (whsec_…)");
    // One deployment, one mode.
    const modes = new Set(order.map((v) => isLive(cfg, v)));
    if (modes.size > 1 && !issues.some((i) => i.issueLocation === 'STRIPE_SECRET_KEY'))
      add('STRIPE_SECRET_KEY', 'is of another mode than the other vendor (test and live vendors mixed)');
  }
  return issues;
}
