/**
 * The worker's configuration, read once: `config(env)` turns the settings of
 * `Env` (docs/configuration.md) into a typed `Config` with every default and
 * bound applied, once per `env` object (an isolate keeps one; a Durable
 * Object or a queue consumer asks with its own). Requests read it as
 * `c.var.config` (set by middleware/with-config.ts, the first middleware); code without a
 * request (alarms, queue consumers) calls `config(env)`. Whether a deployment
 * can do its job with these settings is the configuration guard's question
 * (middleware/config-guard.ts), not this module's: here a malformed value
 * falls back to its default, as each reader did before.
 *
 * Plain parsing, no zod: nothing here is input from a caller, and the
 * production bundle pays for every schema.
 */
import type { Env } from './lib/env';
import { isLoopbackHost, normaliseOrigin } from './lib/origins';
import type { PollSchedule } from './verifications/poll-schedule';
import type { LifecycleSettings } from './verifications/lifecycle';
import type { Issue } from './lib/errors';
import { settingRangeProblems } from './middleware/setting-ranges';
import { isVendorId, type VendorId } from './vendors/adapter';
import { DEFAULT_SEARCH_PATH } from './vendors/idv/defaults';

export interface Config {
  vendor: {
    /** The built-in sandbox is the vendor (KYC_BASE_URL unset or `sandbox`). */
    sandbox: boolean;
    /** KYC_BASE_URL, trimmed; undefined with the sandbox. */
    baseUrl: string | undefined;
    /** KYC_CHANNEL (default `api`). */
    channel: string;
    /** KYC_TIMEOUT_MS (default 8000, at most 60 s): every vendor call, and the Turnstile check. */
    timeoutMs: number;
    /** KYC_SEARCH_PATH (default: the idv vendor's, `vendors/idv/defaults.ts`). */
    searchPath: string;
    /** KYC_PROVIDER, sent with the result call. */
    provider: string | undefined;
  };
  /** The environment partner's vendors and failover (KYC_VENDOR, VENDOR_FAILOVER, STRIPE_*): docs/vendors.md. */
  vendors: VendorSettings;
  /**
   * Whether outcomes are real (`livemode` of tokens and webhooks): false
   * whenever a vendor of the environment partner is a double (the sandbox, the
   * Stripe double) or a Stripe test key; the configuration guard refuses a mix.
   */
  livemode: boolean;
  /** The sales demo is on (DEMO, by default on exactly while the sandbox is the vendor). */
  demo: boolean;
  /** DEMO=on set explicitly: the only way a deployed worker runs the sandbox. */
  demoExplicit: boolean;
  /** PUBLIC_ORIGIN as a normalised http(s) origin; undefined when unset or not one. */
  publicOrigin: string | undefined;
  /** ALLOWED_ORIGINS, normalised (the environment partner's origins). */
  allowedOrigins: string[];
  sms: {
    /** SMS_ALLOWED_COUNTRIES, upper case (default AU, NZ, GB, IE, US, CA). */
    allowedCountries: string[];
    /** A texted link needs Turnstile with a real vendor unless SMS_REQUIRES_TURNSTILE=off. */
    requiresTurnstile: boolean;
  };
  /** DEFAULT_COUNTRY, trimmed and upper case (the configuration guard checks it): the environment partner's default country. */
  defaultCountry: string | undefined;
  /** MIN_AGE as written (the configuration guard checks it is whole years, 1–120): the environment partner's minimum age. */
  minAge: string | undefined;
  /** Budgets longer than a rate-limit window (lib/allowances.ts). */
  limits: Record<LimitName, number>;
  outcomes: {
    /** RESULT_POLL_SECONDS / RESULT_POLL_MAX_SECONDS, in ms. */
    poll: PollSchedule;
    /** VERIFICATION_GRACE_SECONDS (default 900), LINK_MAX_SECONDS (default 86400), VERIFICATION_MAX_SECONDS (default 86400), in ms. */
    lifecycle: LifecycleSettings;
    /** WEBHOOK_TIMEOUT_MS (default 15000). */
    webhookTimeoutMs: number;
    /** WEBHOOK_RETRY_SCHEDULE, seconds before each retry. */
    webhookRetrySchedule: number[];
    /** WEBHOOK_MAX_ATTEMPTS (default: the schedule's length + 1). */
    webhookMaxAttempts: number;
  };
  /** PARTNERS_CACHE_SECONDS (default 30, at most 300). */
  partnersCacheSeconds: number;
  /** The environment partner's vendor account and flow (KYC_*). */
  operator: OperatorSettings;
  /** Secrets, trimmed, undefined when unset: never logged, answered or stored. */
  secrets: Secrets;
  /** WEBHOOK_URL, trimmed: where the environment partner's events go. */
  webhookUrl: string | undefined;
  /** TURNSTILE_VERIFY_URL (default Cloudflare's siteverify). */
  turnstileVerifyUrl: string;
  /** Cloudflare Access in front of /ops: OPS_ACCESS_TEAM_DOMAIN (as written, trimmed) and OPS_ACCESS_AUD. */
  opsAccess: { teamDomain: string | undefined; aud: string | undefined };
  /** LISTEN_HOST: where `npm start` says the local stack listens (anything but loopback opens nothing without credentials). */
  listenHost: string | undefined;
  /** Number settings and PARTNER_SERVER_KEYS outside their range (middleware/setting-ranges.ts): the configuration guard refuses them. */
  invalidSettings: Issue[];
}

export interface VendorSettings {
  /** KYC_VENDOR, known ids in priority order, each once (default `idv`). */
  order: VendorId[];
  /** Entries of KYC_VENDOR that name no vendor we have (the guard names the setting). */
  unknown: string[];
  /** VENDOR_FAILOVER; undefined when it is neither `off` nor `before_start`. */
  failover: 'off' | 'before_start' | undefined;
  stripe: {
    /** The Stripe double is Stripe: STRIPE_API_BASE `sandbox`, or unset while the idv sandbox is the vendor and no key is set. */
    sandbox: boolean;
    /** STRIPE_API_BASE without a trailing slash (default Stripe's API); undefined for the double (the worker's own origin). */
    base: string | undefined;
    /** STRIPE_VERIFICATION_TYPE; undefined when it is neither `document` nor `id_number`. */
    verificationType: 'document' | 'id_number' | undefined;
  };
}

export interface OperatorSettings {
  /** KYC_CUSTOMER_ID as set (an empty value stays empty: the configuration guard names it). */
  customerId: string | undefined;
  /** KYC_API_KEY (a secret) as set, like the customer ID. */
  apiKey: string | undefined;
  /** KYC_CUSTOMER_CHILD_ID. */
  childId: string | undefined;
  /** KYC_FLOW_ID. */
  flowId: string | undefined;
  /** KYC_SMS_SENDER_NAME. */
  smsSenderName: string | undefined;
  /** KYC_SMS_TEMPLATE_ID. */
  smsTemplateId: string | undefined;
}

export interface Secrets {
  /** SESSION_SECRET: signs session tokens. */
  sessionSecret: string | undefined;
  /** TURNSTILE_SECRET_KEY: the environment partner's Turnstile. */
  turnstileSecretKey: string | undefined;
  /** PARTNER_SEALING_KEY: opens the registry's sealed secrets. */
  partnerSealingKey: string | undefined;
  /** PARTNER_SERVER_KEYS: the environment partner's `/v1` keys. */
  partnerServerKeys: string[];
  /** RESULT_SIGNING_KEYS: the JWK array that signs result tokens. */
  resultSigningKeys: string | undefined;
  /** WEBHOOK_SECRET: signs the environment partner's webhooks. */
  webhookSecret: string | undefined;
  /** OPS_TOKEN: the bearer token that opens /ops. */
  opsToken: string | undefined;
  /** STRIPE_SECRET_KEY: the environment partner's Stripe key. */
  stripeSecretKey: string | undefined;
  /** STRIPE_WEBHOOK_SECRET: checks Stripe's events to /vendor-webhooks/stripe/{partnerId}. */
  stripeWebhookSecret: string | undefined;
}

/** Stripe's API root (STRIPE_API_BASE's default). */
export const STRIPE_API = 'https://api.stripe.com';

export const DEFAULTS = {
  channel: 'api',
  searchPath: DEFAULT_SEARCH_PATH,
  timeoutMs: 8000,
  smsAllowedCountries: ['AU', 'NZ', 'GB', 'IE', 'US', 'CA'],
  retrySchedule: [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400],
  partnersCacheSeconds: 30,
} as const;

export const MAX_PARTNERS_CACHE_SECONDS = 300;

export const DEFAULT_TURNSTILE_VERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';

/** Defaults (docs/security.md has the arithmetic); each overridable by a var of the same name. */
export const LIMIT_DEFAULTS = {
  /** Texts one number may get in 24 hours, across every partner. */
  LIMIT_SMS_PER_NUMBER_PER_DAY: 10,
  /** Verifications one client IP (IPv6: /64) may hold open at once, across every partner. */
  LIMIT_OPEN_PER_IP: 20,
  /** Verifications one partner may hold open at once. */
  LIMIT_OPEN_PER_PARTNER: 5000,
} as const;
export type LimitName = keyof typeof LIMIT_DEFAULTS;

const int = (raw: string | undefined, fallback: number, min: number, max: number) => {
  const n = Number(raw);
  return Number.isFinite(n) && raw?.trim() ? Math.min(max, Math.max(min, Math.round(n))) : fallback;
};

const positiveInt = (raw: string | undefined, fallback: number) => {
  const n = Number(raw?.trim() || NaN);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

/** True while the built-in sandbox is the vendor (docs/api.md: KYC_BASE_URL unset or `sandbox`). */
function usesSandbox(env: Pick<Env, 'KYC_BASE_URL'>): boolean {
  const base = env.KYC_BASE_URL?.trim();
  return !base || base === 'sandbox';
}

/** Splits a comma list, trimming and dropping blanks. */
export function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** `DEMO=on` (or `true`, `1`) set explicitly: the only way a deployed worker runs the sandbox. */
function demoExplicitlyOn(env: Env): boolean {
  const v = env.DEMO?.trim().toLowerCase();
  return v === 'on' || v === 'true' || v === '1';
}

/**
 * Whether the sales demo is on: `DEMO=on|off`, and by default on exactly
 * while the sandbox is the vendor (a demo against a real vendor would create
 * real people under the demo partners).
 */
function demoSetting(env: Env, sandbox: boolean): boolean {
  if (demoExplicitlyOn(env)) return true;
  const v = env.DEMO?.trim().toLowerCase();
  if (v === 'off' || v === 'false' || v === '0') return false;
  return sandbox;
}

const trimmed = (raw: string | undefined) => raw?.trim() || undefined;

function retrySchedule(raw: string | undefined): number[] {
  const parsed = list(raw).map(Number);
  return parsed.length && parsed.every((n) => Number.isFinite(n) && n >= 0)
    ? parsed.map((n) => Math.min(Math.round(n), 86_400))
    : [...DEFAULTS.retrySchedule];
}

/** PARTNERS_CACHE_SECONDS as the worker reads it (also the partners CLI, for its wait). */
export function cacheSeconds(raw: string | undefined): number {
  const trimmed = raw?.trim();
  if (!trimmed) return DEFAULTS.partnersCacheSeconds;
  const n = Number(trimmed);
  return Number.isFinite(n) && n >= 0 ? Math.min(n, MAX_PARTNERS_CACHE_SECONDS) : DEFAULTS.partnersCacheSeconds;
}

/** KYC_VENDOR, VENDOR_FAILOVER and STRIPE_* as the worker reads them. */
function vendorSettings(env: Env, idvSandbox: boolean): VendorSettings {
  const names = list(env.KYC_VENDOR).map((v) => v.toLowerCase());
  const order = [...new Set(names.filter(isVendorId))];
  const failover = env.VENDOR_FAILOVER?.trim().toLowerCase() || 'off';
  const base = env.STRIPE_API_BASE?.trim();
  const stripeSandbox = base === 'sandbox' || (!base && idvSandbox && !trimmed(env.STRIPE_SECRET_KEY));
  const type = env.STRIPE_VERIFICATION_TYPE?.trim() || 'document';
  return {
    order: names.length ? order : ['idv'],
    unknown: names.filter((n) => !isVendorId(n)),
    failover: failover === 'off' || failover === 'before_start' ? failover : undefined,
    stripe: {
      sandbox: stripeSandbox,
      base: stripeSandbox ? undefined : (base || STRIPE_API).replace(/\/+$/, ''),
      verificationType: type === 'document' || type === 'id_number' ? type : undefined,
    },
  };
}

/** Whether a Stripe key is a live one (`sk_live_`, `rk_live_`). */
export const isLiveStripeKey = (key: string | undefined) => key !== undefined && /^(sk|rk)_live_/.test(key);

/** `env`'s settings, parsed (no caching: `config` keeps the result). */
export function readConfig(env: Env): Config {
  const sandbox = usesSandbox(env);
  const timeout = Number(env.KYC_TIMEOUT_MS);
  const pollSeconds = int(env.RESULT_POLL_SECONDS, 30, 5, 3600);
  const schedule = retrySchedule(env.WEBHOOK_RETRY_SCHEDULE);
  const countries = list(env.SMS_ALLOWED_COUNTRIES).map((c) => c.toUpperCase());
  const vendors = vendorSettings(env, sandbox);
  // Test outcomes wherever a double or a test key is among the vendors (the guard refuses a mix of modes).
  const doubles = vendors.order.some((v) =>
    v === 'idv' ? sandbox : vendors.stripe.sandbox || !isLiveStripeKey(trimmed(env.STRIPE_SECRET_KEY)),
  );
  const onlyDoubles = vendors.order.every((v) => (v === 'idv' ? sandbox : vendors.stripe.sandbox));
  return {
    vendor: {
      sandbox,
      baseUrl: sandbox ? undefined : env.KYC_BASE_URL?.trim(),
      channel: env.KYC_CHANNEL || DEFAULTS.channel,
      timeoutMs: Number.isFinite(timeout) && timeout > 0 ? Math.min(timeout, 60_000) : DEFAULTS.timeoutMs,
      searchPath: env.KYC_SEARCH_PATH || DEFAULTS.searchPath,
      provider: env.KYC_PROVIDER || undefined,
    },
    vendors,
    livemode: !doubles,
    demo: demoSetting(env, onlyDoubles),
    demoExplicit: demoExplicitlyOn(env),
    publicOrigin: env.PUBLIC_ORIGIN?.trim() ? normaliseOrigin(env.PUBLIC_ORIGIN.trim()) : undefined,
    allowedOrigins: list(env.ALLOWED_ORIGINS)
      .map((o) => normaliseOrigin(o))
      .filter((o): o is string => o !== undefined),
    sms: {
      allowedCountries: countries.length ? countries : [...DEFAULTS.smsAllowedCountries],
      requiresTurnstile: env.SMS_REQUIRES_TURNSTILE?.trim().toLowerCase() !== 'off',
    },
    defaultCountry: trimmed(env.DEFAULT_COUNTRY)?.toUpperCase(),
    minAge: trimmed(env.MIN_AGE),
    limits: {
      LIMIT_SMS_PER_NUMBER_PER_DAY: positiveInt(env.LIMIT_SMS_PER_NUMBER_PER_DAY, LIMIT_DEFAULTS.LIMIT_SMS_PER_NUMBER_PER_DAY),
      LIMIT_OPEN_PER_IP: positiveInt(env.LIMIT_OPEN_PER_IP, LIMIT_DEFAULTS.LIMIT_OPEN_PER_IP),
      LIMIT_OPEN_PER_PARTNER: positiveInt(env.LIMIT_OPEN_PER_PARTNER, LIMIT_DEFAULTS.LIMIT_OPEN_PER_PARTNER),
    },
    outcomes: {
      poll: {
        pollMs: pollSeconds * 1000,
        maxMs: Math.max(pollSeconds, int(env.RESULT_POLL_MAX_SECONDS, 900, 5, 86_400)) * 1000,
      },
      lifecycle: {
        graceMs: int(env.VERIFICATION_GRACE_SECONDS, 900, 0, 86_400) * 1000,
        linkMaxMs: int(env.LINK_MAX_SECONDS, 86_400, 60, 7 * 86_400) * 1000,
        afterDeadlineMs: int(env.VERIFICATION_MAX_SECONDS, 86_400, 0, 7 * 86_400) * 1000,
      },
      webhookTimeoutMs: int(env.WEBHOOK_TIMEOUT_MS, 15_000, 100, 60_000),
      webhookRetrySchedule: schedule,
      webhookMaxAttempts: int(env.WEBHOOK_MAX_ATTEMPTS, schedule.length + 1, 1, 100),
    },
    partnersCacheSeconds: cacheSeconds(env.PARTNERS_CACHE_SECONDS),
    operator: {
      customerId: env.KYC_CUSTOMER_ID,
      apiKey: env.KYC_API_KEY,
      childId: env.KYC_CUSTOMER_CHILD_ID || undefined,
      flowId: env.KYC_FLOW_ID || undefined,
      smsSenderName: env.KYC_SMS_SENDER_NAME || undefined,
      smsTemplateId: env.KYC_SMS_TEMPLATE_ID || undefined,
    },
    secrets: {
      sessionSecret: trimmed(env.SESSION_SECRET),
      turnstileSecretKey: trimmed(env.TURNSTILE_SECRET_KEY),
      partnerSealingKey: trimmed(env.PARTNER_SEALING_KEY),
      partnerServerKeys: list(env.PARTNER_SERVER_KEYS),
      resultSigningKeys: trimmed(env.RESULT_SIGNING_KEYS),
      webhookSecret: trimmed(env.WEBHOOK_SECRET),
      opsToken: trimmed(env.OPS_TOKEN),
      stripeSecretKey: trimmed(env.STRIPE_SECRET_KEY),
      stripeWebhookSecret: trimmed(env.STRIPE_WEBHOOK_SECRET),
    },
    webhookUrl: trimmed(env.WEBHOOK_URL),
    turnstileVerifyUrl: env.TURNSTILE_VERIFY_URL || DEFAULT_TURNSTILE_VERIFY_URL,
    opsAccess: { teamDomain: trimmed(env.OPS_ACCESS_TEAM_DOMAIN), aud: trimmed(env.OPS_ACCESS_AUD) },
    listenHost: trimmed(env.LISTEN_HOST),
    invalidSettings: settingRangeProblems(env as unknown as Record<string, unknown>, !sandbox),
  };
}

// eslint-disable-next-line registries/no-dependency-registry -- a cache of what config() computes from this env, no dependency
const cache = new WeakMap<Env, Config>();

/** The configuration of `env`, parsed on first use and kept for that env object (an isolate's life). */
export function config(env: Env): Config {
  let c = cache.get(env);
  if (!c) cache.set(env, (c = readConfig(env)));
  return c;
}

/**
 * The worker's own origin, trusted: PUBLIC_ORIGIN; unset, the origin the
 * request reached, but only on a loopback host (off loopback the `Host`
 * header is whatever the client wrote). Undefined otherwise: the
 * configuration guard refuses /api and /v1 requests then, so a route
 * behind it always has one.
 */
export function trustedOwnOrigin(cfg: Pick<Config, 'publicOrigin'>, requestUrl: string): string | undefined {
  if (cfg.publicOrigin) return cfg.publicOrigin;
  const u = new URL(requestUrl);
  return isLoopbackHost(u.hostname) ? u.origin : undefined;
}

/**
 * Whether this worker runs deployed: a configured PUBLIC_ORIGIN, or the
 * request's host, that is not a loopback host. A deployed worker may use the
 * sandbox only with DEMO=on set explicitly.
 */
export function isDeployed(cfg: Pick<Config, 'publicOrigin'>, requestUrl: string): boolean {
  if (cfg.publicOrigin && !isLoopbackHost(new URL(cfg.publicOrigin).hostname)) return true;
  return !isLoopbackHost(new URL(requestUrl).hostname);
}
