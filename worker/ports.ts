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
import type { LinkStart, Renewal, Verification, WebhookEvent, WebhookState } from './verifications/verification';
import type { Arrival, ClaimOutcome, RenewalTurn, ReturnHint } from './verifications/verification-logic';
import type { AttemptReport, ReportResult, UndeliveredEvent } from './verifications/webhook-outbox';
import type { WebhookTarget } from './verifications/webhook-target';

/** What the routes and the queue consumer use, whichever store is behind it. */
export interface Verifications {
  create(v: Verification): Promise<void>;
  observe(id: string, hint?: ReturnHint): Promise<Verification | undefined>;
  webhookOutcome(id: string, state: WebhookState, attempts: number, status?: number): Promise<void>;
  /** The record as it is, without asking the vendor. */
  read(id: string): Promise<Verification | undefined>;
  /** The caller's turn to make a new link, after any renewal under way: its lease and the record then (verification-logic.ts). */
  beginRenewal(id: string): Promise<RenewalTurn>;
  /** Ends a renewal turn, whether or not it stored a link. */
  endRenewal(id: string, lease: string): Promise<void>;
  /** A new link for the same verification; undefined when it has ended or had its renewals. */
  renew(id: string, r: Renewal): Promise<Verification | undefined>;
  /** Handoff: the hosted flow's URL for a valid, unused handoff token (then used, unless `consume` is false). */
  openHandoff(id: string, token: string, consume?: boolean): Promise<string | undefined>;
  /** Handoff: the phone's return with the return secret (single use). */
  arrive(id: string, secret: string, outcome: 'success' | 'error', hint: ReturnHint): Promise<Arrival | undefined>;
  /** Handoff by text message: the first device's code, entered by the browser that arrived (its key). */
  claim(id: string, browserKey: string, code: string): Promise<ClaimOutcome>;
  /** A server-started verification's first link; undefined when it is no longer `created`. */
  startLink(id: string, s: LinkStart): Promise<Verification | undefined>;
  /** `/v1` cancel: the record after (unchanged when it had ended already). */
  cancel(id: string): Promise<Verification | undefined>;
  /** `/v1` redact: the record after. */
  redact(id: string): Promise<Verification | undefined>;
  /** `/v1` redeliver: the event queued again; undefined while it has not ended. */
  redeliver(id: string): Promise<WebhookEvent | undefined>;
  /** The events not delivered yet (queued, failed, dead). */
  undelivered(id: string): Promise<UndeliveredEvent[]>;
  /** The queue consumer: the event to attempt (its outbox copy), or undefined when that attempt is no longer owed. */
  outboxEvent(id: string, sequence: number, attempt: number): Promise<WebhookEvent | undefined>;
  /** The queue consumer: what an attempt came to; undefined when it was already reported. */
  webhookAttempt(id: string, sequence: number, attempt: number, report: AttemptReport): Promise<ReportResult | undefined>;
  /** An event queued before the outbox existed, handed to it. */
  adopt(id: string, event: WebhookEvent): Promise<void>;
  /** The sandbox command (local stack only): the vendor asked at once, as for a person back from the hosted flow. */
  askNow(id: string): Promise<Verification | undefined>;
  /** The sandbox command (local stack only): an open verification ends as expired now. */
  expireNow(id: string): Promise<Verification | undefined>;
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
