// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the generated types are a global declaration file (no module to import)
/// <reference path="../worker-configuration.d.ts" />
/**
 * The worker's bindings. Names are part of the product contract
 * (the configuration table in docs/configuration.md); each line says what it is.
 * Secrets go in `.dev.vars` locally and `wrangler secret put` in production.
 */
import { ApiError } from './errors';

export interface Env extends CloudflareBindings {
  /** Vendor host root (`{base_url}`). Unset or `sandbox` = the built-in sandbox. */
  KYC_BASE_URL?: string;
  /** Secret. The idv vendor's API key. Sandbox default `sandbox-key`. */
  KYC_API_KEY?: string;
  /** Secret/var. The idv vendor's customer id. Sandbox default `demo-customer`. */
  KYC_CUSTOMER_ID?: string;
  /** Secret/var. The idv vendor's child id, only when set. */
  KYC_CUSTOMER_CHILD_ID?: string;
  /** The idv vendor's channel, truncated to 64 chars; never taken from the browser. `api` in wrangler.toml. */
  KYC_CHANNEL: string;
  /** `flowId` of the hosted flow. */
  KYC_FLOW_ID?: string;
  /** `provider` sent with the result call. */
  KYC_PROVIDER?: string;
  /** `senderName` of the SMS. */
  KYC_SMS_SENDER_NAME?: string;
  /** The idv vendor's SMS template id. */
  KYC_SMS_TEMPLATE_ID?: string;
  /** Path of the idv vendor's entity search under `{base_url}` (default: its own, `vendors/idv/defaults.ts`). */
  KYC_SEARCH_PATH?: string;
  /** Timeout of every vendor call, in milliseconds. 8000 in wrangler.toml (and by default). */
  KYC_TIMEOUT_MS: string;
  /** The environment partner's identity vendors in priority order, comma list: `idv` (default), `stripe`, `idv,stripe`. */
  KYC_VENDOR?: string;
  /** `off` (default) or `before_start`: a link the first vendor cannot make (a fault, never a 4xx) is made by the next. */
  VENDOR_FAILOVER?: string;
  /** Secret. Stripe's secret (or restricted) key, `sk_test_…`/`rk_test_…` or `sk_live_…`/`rk_live_…`: its mode is the deployment's. */
  STRIPE_SECRET_KEY?: string;
  /** Stripe's API root. Default Stripe's API; `sandbox` = the built-in Stripe double (unset beside the idv sandbox and no key: the double). */
  STRIPE_API_BASE?: string;
  /** Secret. Stripe's webhook signing secret (`whsec_…`) for `POST /vendor-webhooks/stripe/{partnerId}`. Unset = no Stripe events (polling only). */
  STRIPE_WEBHOOK_SECRET?: string;
  /** The VerificationSession `type`: `document` (default) or `id_number`. */
  STRIPE_VERIFICATION_TYPE?: string;
  /** Comma list of partner origins (CORS and redirect targets). The worker's own origin stays a redirect target (handoff pages); it is a partner only while DEMO is on. */
  ALLOWED_ORIGINS?: string;
  /** Secret. Signs session tokens. May be unset only while the sandbox is the vendor. */
  SESSION_SECRET?: string;
  /** Comma list of ISO 3166-1 alpha-2 countries an SMS may go to. Default `AU,NZ,GB,IE,US,CA`. */
  SMS_ALLOWED_COUNTRIES?: string;
  /** ISO 3166-1 alpha-2 country (`DE`) whose calling code the widget starts with when its language names no region. */
  DEFAULT_COUNTRY?: string;
  /** The environment partner's minimum age in whole years (1–120): a younger person is refused, by the widget and the worker. Default unset. */
  MIN_AGE?: string;
  /** Secret. Turns on the Turnstile bot check before link creation. */
  TURNSTILE_SECRET_KEY?: string;
  /** Where Turnstile tokens are verified. Default Cloudflare's siteverify. */
  TURNSTILE_VERIFY_URL?: string;
  /** JSON: the sandbox's customers, children, keys and switches. */
  SANDBOX_CREDENTIALS?: string;
  /** The sandbox's hard cap on search results. Default 50. */
  SANDBOX_SEARCH_CAP?: string;
  /** How long sandbox data lives, in seconds. Default 86400. */
  SANDBOX_TTL_SECONDS?: string;
  /** `on` serves the sales demo and makes the own origin the two demo partners. Default: on while the sandbox is the vendor. */
  DEMO?: string;
  /**
   * Secret. Private P-256 JWK (or a JSON array of them while it rotates) that
   * opens the partner secrets sealed in the registry. Required once the
   * registry holds a partner and a real vendor is configured.
   */
  PARTNER_SEALING_KEY?: string;
  /** Secret. The environment partner's server keys for `/v1` (`kyc_sk_…`, comma list, one or two). Unset = no `/v1` for it. */
  PARTNER_SERVER_KEYS?: string;
  /** Seconds a partner read from the registry is kept in the isolate. Default 30. */
  PARTNERS_CACHE_SECONDS?: string;

  /** The worker's public origin (`https://kyc.example.com`): `iss` of result tokens, the own origin. Unset = the request's origin, on loopback hosts only. */
  PUBLIC_ORIGIN?: string;
  /** Secret. JSON array of private P-256 JWKs with `kid`; the first signs result tokens, all are published. */
  RESULT_SIGNING_KEYS?: string;
  /** Where webhook events go: `https`, or `http` to a loopback address while the sandbox is the vendor. */
  WEBHOOK_URL?: string;
  /** Secret. `whsec_` + base64: the Standard Webhooks signing secret. */
  WEBHOOK_SECRET?: string;
  /** Seconds between vendor polls of one open verification. Default 30, at least 5. */
  RESULT_POLL_SECONDS?: string;
  /** Longest wait between vendor polls of one verification while no one waits (doubling from RESULT_POLL_SECONDS) or the vendor fails. Default 900. */
  RESULT_POLL_MAX_SECONDS?: string;
  /** Seconds after the link's expiry that a verification is still polled. Default 900. */
  VERIFICATION_GRACE_SECONDS?: string;
  /** Longest a vendor link may live: a later `urlExpiry` is capped to this many seconds ahead. Default 86400. */
  LINK_MAX_SECONDS?: string;
  /** Seconds after its deadline that a verification waits for a vendor that could not answer, then expires `vendor_unavailable`. Default 86400. */
  VERIFICATION_MAX_SECONDS?: string;
  /** Timeout of one webhook attempt, ms. Default 15000. */
  WEBHOOK_TIMEOUT_MS?: string;
  /** Seconds before each retry, comma list. Default 5,300,1800,7200,18000,36000,50400,72000,86400. */
  WEBHOOK_RETRY_SCHEDULE?: string;
  /** Attempts in all. Default: the schedule's length + 1. */
  WEBHOOK_MAX_ATTEMPTS?: string;

  /** Where `npm start` listens (its HOST): anything but a loopback address, and nothing opens for "this machine" (lib/local-client.ts). */
  LISTEN_HOST?: string;
  /** Secret. `Authorization: Bearer <OPS_TOKEN>` opens /ops (the CLI, `npm run ops -- --remote`). */
  OPS_TOKEN?: string;
  /** Cloudflare Access team domain (`<team>.cloudflareaccess.com`): /ops verifies `Cf-Access-Jwt-Assertion` against its keys. */
  OPS_ACCESS_TEAM_DOMAIN?: string;
  /** The Access application's audience tag (AUD) the assertion must name. */
  OPS_ACCESS_AUD?: string;

  // Bindings: their types are generated from wrangler.toml by `npm run cf-typegen`
  // (../worker-configuration.d.ts; `npm run check:types` catches drift). Each is named
  // again here for its line of documentation; the ones production always has are
  // present, the local stack's own (SANDBOX_STORE, DEV_SECRETS) optional.
  /** Static assets: the widget bundle and the demo (dist/public). */
  ASSETS: CloudflareBindings['ASSETS'];
  /** Durable Object (SQLite) that holds the sandbox's state. Local stack only. */
  SANDBOX_STORE?: CloudflareBindings['SANDBOX_STORE'];
  /** Durable Object that remembers answers per Idempotency-Key. */
  IDEMPOTENCY: CloudflareBindings['IDEMPOTENCY'];
  /** Workers KV: the partner registry (`npm run partners`). Empty = the environment is the one partner. */
  PARTNERS: CloudflareBindings['PARTNERS'];
  /** Durable Object per verification: its record and its polling alarm. */
  VERIFICATIONS: CloudflareBindings['VERIFICATIONS'];
  /** Durable Object with the sandbox's generated development secrets. Local stack only. */
  DEV_SECRETS?: CloudflareBindings['DEV_SECRETS'];
  /** Queue of webhook events (this worker consumes it). */
  WEBHOOK_QUEUE: CloudflareBindings['WEBHOOK_QUEUE'];
  /** Dead-letter queue: events whose last attempt failed (this worker consumes and records it). */
  WEBHOOK_DLQ: CloudflareBindings['WEBHOOK_DLQ'];
  /** Queue of the operator's events (worker/ops/events.ts); this worker consumes it into D1 rollups. */
  EVENTS_QUEUE: CloudflareBindings['EVENTS_QUEUE'];
  /** D1: the verification index and the operator console's rollups (migrations/). */
  DB: CloudflareBindings['DB'];
  /** Rate limit per IPv6 /48 on every /api route (next to RL_IP's /64). */
  RL_IP_48: CloudflareBindings['RL_IP_48'];
  /** Rate limit per client IP on every /api route. */
  RL_IP: CloudflareBindings['RL_IP'];
  /** Rate limit per destination phone number for SMS (across partners). */
  RL_SMS: CloudflareBindings['RL_SMS'];
  /** Durable Object per budget that outlives a window: texts per number per day, open verifications per IP and per partner. */
  LIMITS: CloudflareBindings['LIMITS'];
  /** Rate limit on failed credentials (a wrong `/v1` key, a wrong `/ops` token) per client: failed-attempts.ts. */
  RL_AUTH_FAIL: CloudflareBindings['RL_AUTH_FAIL'];
  /** Rate limit per server key on `/v1`. */
  RL_SERVER_KEY: CloudflareBindings['RL_SERVER_KEY'];
  /** Rate limit per server key on `/v1/entities/search`, on top of RL_SERVER_KEY. */
  RL_SEARCH: CloudflareBindings['RL_SEARCH'];
  /** Texts one number may get in 24 hours, across partners. Default 10. */
  LIMIT_SMS_PER_NUMBER_PER_DAY?: string;
  /** Verifications one client IP (IPv6: /64) may hold open at once, across partners. Default 20. */
  LIMIT_OPEN_PER_IP?: string;
  /** Verifications one partner may hold open at once. Default 5000. */
  LIMIT_OPEN_PER_PARTNER?: string;
  /** `off`: a texted link needs no Turnstile with a real vendor (a documented risk). Default: required. */
  SMS_REQUIRES_TURNSTILE?: string;
}

/**
 * A binding production always has (so `Env` types it as present), read where
 * the code works on without it: the node test tier runs the app with no
 * Cloudflare runtime (no rate limiters, queues, D1, assets or KV), and these
 * paths say what happens then. Stores without their binding are not among
 * them: they fail with MISCONFIGURED (`missingBinding` below).
 */
export function bindingIfAny<K extends keyof CloudflareBindings>(env: Pick<Env, K>, name: K): Env[K] | undefined {
  return (env as Partial<Pick<Env, K>>)[name];
}

/**
 * The answer of a store whose binding is missing (a wrangler.toml without it,
 * or a node test that injected no twin): 500 MISCONFIGURED naming the binding,
 * never a silent stand-in.
 */
export function missingBinding(name: keyof CloudflareBindings): ApiError {
  return new ApiError(500, 'MISCONFIGURED', `The service is misconfigured (${name}). The operator has to fix its settings.`, [
    { issue: 'is not bound', issueLocation: name },
  ]);
}
