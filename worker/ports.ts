/**
 * What a deployment plugs into the product, in one object: the stores (each
 * a Durable Object in a deployment, a twin in the node tests) and the
 * plug-ins only the local stack has (the sandbox as the vendor's transport, a
 * partner source, a webhook transport, development secrets, the sandbox's
 * defaults). Routes read it from `c.var.ports` (createApp sets it once per
 * request); Durable Object alarms and queue consumers build the same object
 * with `portsFor` (ports-for.ts). Types only, so any module may name a port
 * without importing the code that fills it.
 */
import type { ExecutionContext } from 'hono';
import type { JWK } from 'jose';
import type { Env } from './lib/env';
import type { DevSecretSource } from './lib/dev-secrets';
import type { Allowances } from './lib/allowances';
import type { IdempotencyStoreApi } from './lib/idempotency';
import type { Partner } from './partners/partner';
import type { Command, ResultOf } from './verifications/commands';
import type { WebhookTarget } from './verifications/webhook-target';

/**
 * The verifications, whichever store is behind it (a Durable Object each; a
 * twin in node tests): one method, a command (verifications/commands.ts)
 * applied to verification `id` as it is at the write.
 */
export interface Verifications {
  execute<C extends Command>(id: string, command: C): Promise<ResultOf<C>>;
}

/** The sandbox, called in process by the vendor client (no network, no second worker). */
export interface InProcessVendor {
  /** Where it answers on the worker's own origin (`{base_url}` = origin + this). */
  path: string;
  fetch(request: Request, env: Env, ctx?: ExecutionContext): Response | Promise<Response>;
}

/**
 * Partners beside the registry and the environment's (the local stack's demo
 * partners, while DEMO is on).
 */
export interface PartnerSource {
  /** The partner whose page `origin` is. */
  byOrigin(env: Env, requestUrl: string, origin: string): Partner | undefined;
  /** Their ids. */
  ids: readonly string[];
  /** The partner named `id` (one of `ids`), while it is on. */
  byId(env: Env, requestUrl: string, id: string): Partner | undefined;
  /** Their `/v1` server keys (partnerId → `kyc_sk_…`), while they have some. */
  serverKeys?(env: Env): Promise<Record<string, string> | undefined>;
}

/** Where a partner's webhook events go when it names no endpoint of its own, and how to send them. */
export interface WebhookRoute {
  target: WebhookTarget;
  send: (url: string, init: RequestInit) => Promise<Response>;
}

/** The route for `partner`'s events, or undefined where it has none. */
export type WebhookTransport = (env: Env, partner: Partner, workerOrigin: string) => Promise<WebhookRoute | undefined>;

/** What the worker uses for unset settings while the sandbox is the vendor. */
export interface SandboxDefaults {
  customerId: string;
  apiKey: string;
  /** Opens registry secrets sealed with `npm run partners` against a local worker. */
  sealingKey: JWK;
  /** The Stripe double's test key and event signing secret (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET while unset). */
  stripeKey?: string;
  stripeWebhookSecret?: string;
}

/** The stores: a Durable Object each in a deployment; without its binding, 500 MISCONFIGURED naming it. */
export interface Stores {
  verifications: Verifications;
  /** The idempotency records that keep `scopedKey`. */
  idempotency(scopedKey: string): IdempotencyStoreApi;
  allowances: Allowances;
}

/** What only some deployments have (production: none of them, so whatever needs one fails closed). */
export interface Plugins {
  /** The sandbox as the vendor (the local stack). */
  inProcessVendor?: InProcessVendor;
  partnerSource?: PartnerSource;
  webhookTransport?: WebhookTransport;
  devSecrets?: DevSecretSource;
  sandboxDefaults?: SandboxDefaults;
}

export interface Ports extends Stores, Plugins {}

/** What an entry or a test gives in place of the defaults: fixed, or per environment (node tests' twins). */
export type PortOverrides = Partial<Ports> | ((env: Env) => Partial<Ports>);
