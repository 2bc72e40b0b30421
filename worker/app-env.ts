/**
 * Hono's generic for the worker's apps, middleware and handlers: the bindings
 * (lib/env.ts) and what the middleware sets on a request. Kept apart from
 * lib/env.ts so the base modules (env, errors) know nothing of the
 * configuration or the middleware.
 */
import type { Config } from './config';
import type { Clock } from './lib/clock';
import type { Env } from './lib/env';
import type { Partner } from './partners/partner';
import type { Ports } from './ports';

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** The configuration, read once per isolate (config.ts; set by the first middleware). */
    config: Config;
    /** The app's clock (lib/clock.ts; createApp's `clock`). */
    clock: Clock;
    /** The stores and plug-ins (ports.ts), built once per request from createApp's `ports`. */
    ports: Ports;
    /** Idempotency-Key on the routes that mount middleware/idempotency.ts. */
    idempotency: Idempotency;
    vendorStatus?: number;
    partner?: Partner;
    /** The settings a misconfigured deployment lacks (their names), for the log line. */
    missing?: string[];
    /**
     * Set (entry/local-app.ts) on requests that reached the sandbox over HTTP, not the worker's own
     * in-process calls: whether such a caller may send people back to an origin.
     */
    sandboxHttpCaller?: (origin: string, requestUrl: string) => Promise<boolean>;
    /** Where the Stripe double's signed events go (set by the local stack's sandbox mount; the double's `stripeWebhook`). */
    stripeWebhook?: (delivery: { body: string; signature: string; clientReferenceId: string | null; origin: string }) => Promise<void>;
  };
}

/** Idempotency-Key on a route that mounts it (middleware/idempotency.ts). */
export interface Idempotency {
  /**
   * Claims `scopedKey` (a key scoped to its caller) for a request whose
   * identity is `fingerprintSource`: a Response to answer with (a replay),
   * or undefined when this request is the first and the route runs on.
   * Throws 409 IDEMPOTENCY_CONFLICT while the first runs, or for another body.
   */
  claim(scopedKey: string, fingerprintSource: string): Promise<Response | undefined>;
  /** This exact request passed the bot check before a definite failure freed its key. */
  readonly verified: boolean;
  /** The bot check passed: a release after a definite failure remembers it. */
  botChecked(): void;
  /** The outcome is unknown (the vendor may have acted): the failure's answer is kept for replays. */
  outcomeUnknown(): void;
}
