/**
 * The sandbox's own bindings and context. The sandbox is a separate part (the
 * vendor's double): it reads only its own settings and never imports the
 * product; whatever it needs from the deployment that mounts it (which
 * redirect addresses an HTTP caller may use) comes in as a callback.
 */
import type { SandboxSettings } from './config';
import type { SandboxStore } from './store-durable';
import { httpUrl } from '../rules/http-url';

export interface SandboxEnv extends SandboxSettings {
  /** Durable Object (SQLite) that holds the sandbox's state. Absent = in memory (node tests). */
  SANDBOX_STORE?: DurableObjectNamespace<SandboxStore>;
}

/**
 * Whether an HTTP caller may send people back to `origin` (a normalised
 * http(s) origin). Set by whoever mounts the sandbox, on requests that reached
 * it over HTTP; the mounting worker's own in-process calls carry none.
 */
export type RedirectCheck = (origin: string, requestUrl: string) => Promise<boolean>;

/** A signed Stripe event from the Stripe double, for whoever mounted it to deliver (as Stripe would to the account's endpoint). */
export interface StripeDelivery {
  body: string;
  /** The `Stripe-Signature` header value. */
  signature: string;
  /** The session's `client_reference_id` (the worker's verificationId). */
  clientReferenceId: string | null;
  /** The origin the double was reached on. */
  origin: string;
}

/** Hono's generic for the sandbox app. */
export interface SandboxAppEnv {
  Bindings: SandboxEnv;
  Variables: {
    requestId: string;
    /** Set on requests that reached the sandbox over HTTP (not the worker's own in-process calls). */
    sandboxHttpCaller?: RedirectCheck;
    /** Set by whoever mounts the sandbox: where the Stripe double's events go (none: they are not sent). */
    stripeWebhook?: (delivery: StripeDelivery) => Promise<void>;
  };
}

/** `value` as a serialised http(s) origin, or undefined. */
export function httpOrigin(value: string): string | undefined {
  return httpUrl(value)?.origin;
}
