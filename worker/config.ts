/**
 * The worker's configuration, read once: `config(env)` turns the settings of
 * `Env` (docs/configuration.md) into a typed `Config` with every default and
 * bound applied, once per `env` object (an isolate keeps one; a Durable
 * Object or a queue consumer asks with its own). Requests read it as
 * `c.var.config` (set by `withConfig`, the first middleware); code without a
 * request (alarms, queue consumers) calls `config(env)`. Whether a deployment
 * can do its job with these settings is the configuration guard's question
 * (middleware/config-guard.ts), not this module's: here a malformed value
 * falls back to its default, as each reader did before.
 *
 * Plain parsing, no zod: nothing here is input from a caller, and the
 * production bundle pays for every schema.
 */
import { createMiddleware } from 'hono/factory';
import { demoExplicitlyOn, list, usesSandbox, type AppEnv, type Env } from './lib/env';
import { isLoopbackHost, normaliseOrigin } from './lib/origins';
import type { PollSchedule } from './verifications/poll-schedule';
import type { LifecycleSettings } from './verifications/lifecycle';

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
    /** KYC_SEARCH_PATH (default `/v2/kyc/entity/search`). */
    searchPath: string;
    /** KYC_PROVIDER, sent with the result call. */
    provider: string | undefined;
  };
  /** Whether outcomes are real: false whenever the sandbox is the vendor (`livemode` of tokens and webhooks). */
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
}

export const DEFAULTS = {
  channel: 'api',
  searchPath: '/v2/kyc/entity/search',
  timeoutMs: 8000,
  smsAllowedCountries: ['AU', 'NZ', 'GB', 'IE', 'US', 'CA'],
  retrySchedule: [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400],
  partnersCacheSeconds: 30,
} as const;

export const MAX_PARTNERS_CACHE_SECONDS = 300;

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

function demoSetting(env: Env, sandbox: boolean): boolean {
  const v = env.DEMO?.trim().toLowerCase();
  if (v === 'on' || v === 'true' || v === '1') return true;
  if (v === 'off' || v === 'false' || v === '0') return false;
  return sandbox;
}

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

/** `env`'s settings, parsed (no caching: `config` keeps the result). */
export function readConfig(env: Env): Config {
  const sandbox = usesSandbox(env);
  const timeout = Number(env.KYC_TIMEOUT_MS);
  const pollSeconds = int(env.RESULT_POLL_SECONDS, 30, 5, 3600);
  const schedule = retrySchedule(env.WEBHOOK_RETRY_SCHEDULE);
  const countries = list(env.SMS_ALLOWED_COUNTRIES).map((c) => c.toUpperCase());
  return {
    vendor: {
      sandbox,
      baseUrl: sandbox ? undefined : env.KYC_BASE_URL?.trim(),
      channel: env.KYC_CHANNEL || DEFAULTS.channel,
      timeoutMs: Number.isFinite(timeout) && timeout > 0 ? Math.min(timeout, 60_000) : DEFAULTS.timeoutMs,
      searchPath: env.KYC_SEARCH_PATH || DEFAULTS.searchPath,
      provider: env.KYC_PROVIDER || undefined,
    },
    livemode: !sandbox,
    demo: demoSetting(env, sandbox),
    demoExplicit: demoExplicitlyOn(env),
    publicOrigin: env.PUBLIC_ORIGIN?.trim() ? normaliseOrigin(env.PUBLIC_ORIGIN.trim()) : undefined,
    allowedOrigins: list(env.ALLOWED_ORIGINS)
      .map((o) => normaliseOrigin(o))
      .filter((o): o is string => o !== undefined),
    sms: {
      allowedCountries: countries.length ? countries : [...DEFAULTS.smsAllowedCountries],
      requiresTurnstile: env.SMS_REQUIRES_TURNSTILE?.trim().toLowerCase() !== 'off',
    },
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
  };
}

const cache = new WeakMap<Env, Config>();

/** The configuration of `env`, parsed on first use and kept for that env object (an isolate's life). */
export function config(env: Env): Config {
  let c = cache.get(env);
  if (!c) cache.set(env, (c = readConfig(env)));
  return c;
}

/** The first middleware: `c.var.config` for every route and middleware after it. */
export const withConfig = createMiddleware<AppEnv>(async (c, next) => {
  c.set('config', config(c.env));
  await next();
});

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
