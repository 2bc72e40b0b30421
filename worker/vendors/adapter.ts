/**
 * The one interface every identity vendor is reached through (docs/vendors.md).
 * An adapter lives in `worker/vendors/<id>/` and is the only code that knows
 * its vendor's paths, headers, statuses and ids; the product speaks this
 * file's words: a link, a reference to it, an answer about one attempt, and
 * a normalised `result {outcome, reason?, vendor, vendorStatus}`.
 *
 * Rules every adapter keeps (test/vendors/conformance.ts checks them):
 * - `createLink` is never retried (a vendor may text or bill per call);
 * - `latestResult` answers about the reference's own subject and attempt
 *   only: another subject is a `VendorMismatchError`, an earlier attempt's
 *   answer is `pending`;
 * - a method its capabilities say it lacks throws `CapabilityUnavailableError`
 *   before any I/O;
 * - every fault is a `VendorError` (errors.ts), whatever the vendor's shape.
 */
import type { Person } from './person';

/** The vendors this build knows, in the order docs/vendors.md lists them. */
export const VENDOR_IDS = ['idv', 'stripe'] as const;
export type VendorId = (typeof VENDOR_IDS)[number];

export const isVendorId = (value: string): value is VendorId => (VENDOR_IDS as readonly string[]).includes(value);

/** The outcome in our own words. */
// A list, so the package's generated types spell its words (scripts/build-package.mjs).
export const OUTCOMES = ['verified', 'failed', 'inconclusive'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * Our reasons, whatever the vendor (docs/vendors.md "Mapping"). A vendor word
 * with no better match is `other`; the vendor's own word is always in
 * `vendorStatus`.
 */
export const REASONS = [
  'no_match',
  'unprocessable',
  'document_unverified',
  'document_expired',
  'selfie_mismatch',
  'consent_declined',
  'under_age',
  'country_not_supported',
  'abandoned',
  'with_notes',
  'other',
] as const;
export type Reason = (typeof REASONS)[number];

/** The normalised outcome of a verification: in `/v1`, webhooks, the result token, `/api/result`. */
export interface VendorResult {
  outcome: Outcome;
  reason?: Reason;
  vendor: VendorId;
  /** The vendor's own word, raw (a status, or the code of what went wrong). */
  vendorStatus: string;
}

/**
 * What a vendor said about one attempt:
 * - `pending`: not finished (or nothing yet, or an answer about an earlier attempt);
 * - `retryable`: this attempt ended in a way a person may fix by trying
 *   again (a mistyped detail, a blurred photo); the verification decides
 *   whether attempts are left (`finalFromRetryable` when none are);
 * - `final`: the outcome.
 * `check` is the vendor's id of the check answered about, when it names one.
 */
export type VendorAnswer =
  | { state: 'pending'; vendorStatus: string; check?: string }
  | { state: 'retryable'; reason: Reason; vendorStatus: string; check?: string }
  | { state: 'final'; result: VendorResult; check?: string };

/** A retryable ending with no attempts left: failed, with its reason. */
export const finalFromRetryable = (vendor: VendorId, a: Extract<VendorAnswer, { state: 'retryable' }>): VendorResult => ({
  outcome: 'failed',
  reason: a.reason,
  vendor,
  vendorStatus: a.vendorStatus,
});

/**
 * What the product keeps about a link: plain JSON, no secret and no hosted
 * URL. `subject` is the vendor's record the answers are about (idv: its
 * entity; stripe: the VerificationSession, one per attempt); `check` the
 * attempt's own check where the vendor names one at creation.
 */
export interface VendorRef {
  vendor: VendorId;
  subject: string;
  check?: string;
  /** When the link was made (ms since the epoch, the adapter's clock). */
  linkedAt: number;
}

/** The person's details, for a vendor that takes them up front (idv); others ignore them. */
export interface PersonDetails {
  name: { givenName?: string; middleName?: string; familyName: string };
  /** YYYY-MM-DD. */
  dateOfBirth: string;
  /** `code` with its `+`, `national` the digits the vendor texts to. */
  phone?: { code: string; national: string };
}

export interface LinkRequest {
  /** Ours: travels to the vendor as its reference (metadata, client reference), never as a secret. */
  verificationId: string;
  /** Where the hosted flow sends the person when it ends well, and when it does not (default: `returnUrl`). */
  returnUrl: string;
  errorUrl?: string;
  customerRef?: string;
  /** The request's id, where the vendor keeps one with the link. */
  requestId?: string;
  person?: PersonDetails;
  /**
   * The person's phone without their details (a texted link sent again): the
   * number texted; `person.phone` otherwise. Vendors that do not text ignore it.
   */
  phone?: { code: string; national: string };
  /** A link for a subject the vendor already has (a renewal, a next attempt): needs `entityReuse`. */
  subject?: string;
}

/** A texted link: `person.phone` is where it goes. */
export interface SmsRequest {
  senderName?: string;
  templateId?: string;
}

export interface VendorLink {
  ref: VendorRef;
  /**
   * The hosted URL, for this answer only: never stored or logged where the
   * adapter has `openUrl` (a one-time URL is fetched again when the person
   * opens it). Absent for a link the vendor texted.
   */
  url?: string;
  /** When the link stops working (ms), capped to `AdapterContext.linkMaxMs` ahead. */
  expiresAt: number;
  /** Whether the vendor texted the link. */
  smsSent: boolean;
  /** The vendor's own word for the link it made, raw (the browser's deprecated `status`). */
  vendorStatus?: string;
}

export interface Capabilities {
  /** The vendor texts its own link (`sendLink`). */
  sms: boolean;
  /** Entity search (`search`). */
  entitySearch: boolean;
  /** A new link for a subject the vendor already has (`LinkRequest.subject`, `entityId` on create). */
  entityReuse: boolean;
  /** `cancel` at the vendor. */
  cancelAtVendor: boolean;
  /** `redact` at the vendor. */
  redactAtVendor: boolean;
  /** Signed events from the vendor (`verifyWebhook`). */
  vendorWebhooks: boolean;
  /** The vendor's record of the person (`person`, `/v1 ?include=person`). */
  person: boolean;
}
export type Capability = keyof Capabilities;

/** A vendor event whose signature held: it only makes the worker ask sooner. */
export interface VendorEvent {
  /** The vendor's event id. */
  id: string;
  /** The vendor's event type, raw. */
  type: string;
  /** The subject it is about, when the event is one the adapter knows (else the event is ignored). */
  subject?: string;
  /** Our reference the vendor echoes (the verificationId we gave at `createLink`), when it does. */
  reference?: string;
}

/**
 * The person as `/v1` shows one (`include=person`, entity search): its schema
 * is server-api/schemas.ts `Person`, the one allow-list the adapter fills
 * from its vendor's record, never the record itself.
 */
export type VendorPerson = Person;

/** One match of an entity search: the vendor's subject, its confidence, and (unless only ids were asked for) the person. */
export interface SearchMatch {
  entityId: string;
  confidence?: number;
  person?: VendorPerson;
}

export interface Health {
  ok: true;
  ms: number;
}

/** What an adapter is built with, besides its credentials. */
export interface AdapterContext {
  /** The adapter's clock (ms since the epoch); tests control it. */
  now: () => number;
  /** The longest a link may live (LINK_MAX_SECONDS), ms. */
  linkMaxMs: number;
  /** How a request leaves (global `fetch`, an in-process double, msw). */
  fetch: (request: Request) => Promise<Response>;
  /** KYC_TIMEOUT_MS. */
  timeoutMs: number;
  /** Told about each call once it is over (the operator's `vendor.call` event). Must not throw. */
  onCall?: (operation: AdapterOperation, outcome: VendorOutcome, ms: number) => void;
}

/** How a call ended: answered 2xx and readable, 4xx, any other failure to answer properly, no answer in time, no connection. */
export type VendorOutcome = 'ok' | '4xx' | '5xx' | 'timeout' | 'network';

/** The operations an operator's event names (per vendor). */
export type AdapterOperation = 'link' | 'result' | 'health' | 'search' | 'open' | 'cancel' | 'redact';

export interface VendorAdapter {
  readonly id: VendorId;
  /** Whether outcomes are real (a live key) or tests (the double, a test key). */
  readonly livemode: boolean;
  readonly capabilities: Readonly<Capabilities>;
  /** A hosted link for one attempt. Never retried. */
  createLink(request: LinkRequest): Promise<VendorLink>;
  /** The newest answer about `ref`'s own subject and attempt; `priorChecks` are the verification's earlier attempts' checks. */
  latestResult(ref: VendorRef, options?: { priorChecks?: readonly string[] }): Promise<VendorAnswer>;
  /** Whether the vendor answers with these credentials (throws a VendorError when not). */
  health(): Promise<Health>;
  /** A link the vendor texts to `request.person.phone` (`sms`). */
  sendLink?(request: LinkRequest, sms: SmsRequest): Promise<VendorLink>;
  /** A fresh hosted URL for `ref`, when the person opens it; undefined once the vendor no longer offers one. */
  openUrl?(ref: VendorRef): Promise<string | undefined>;
  /** Stops the attempt at the vendor, while it allows (`cancelAtVendor`). */
  cancel?(ref: VendorRef): Promise<void>;
  /** Asks the vendor to erase what it holds about the attempt (`redactAtVendor`). */
  redact?(ref: VendorRef): Promise<void>;
  /** The vendor's entity search (`entitySearch`; only idv has one): its matches, each person as `/v1` shows one. */
  search?(criteria: unknown, options: { child?: boolean; limit?: number; onlyEntityIds?: boolean }): Promise<SearchMatch[]>;
  /** The vendor's record of the person (`person`), about `ref`'s subject only, as `/v1` shows it (an allow-list). */
  person?(ref: VendorRef): Promise<VendorPerson>;
  /**
   * Checks a vendor event's signature with the clock of the context; returns
   * the event, or undefined when the signature (or its time) does not hold.
   */
  verifyWebhook?(headers: Headers, body: string): Promise<VendorEvent | undefined>;
}

/** The methods a capability stands for. */
const METHOD_OF = {
  sendLink: 'sms',
  search: 'entitySearch',
  cancel: 'cancelAtVendor',
  redact: 'redactAtVendor',
  verifyWebhook: 'vendorWebhooks',
  person: 'person',
} as const satisfies Partial<Record<keyof VendorAdapter, Capability>>;
type OptionalMethod = keyof typeof METHOD_OF;

/** A request the vendor cannot serve: `501 CAPABILITY_UNAVAILABLE` naming both (errors.ts). */
export class CapabilityUnavailableError extends Error {
  constructor(
    readonly vendor: VendorId,
    readonly capability: Capability,
  ) {
    super(`vendor ${vendor} has no ${capability}`);
    this.name = 'CapabilityUnavailableError';
  }
}

/** The vendor answered about another subject than the one asked about: never credited. */
export class VendorMismatchError extends Error {
  constructor(readonly vendor: VendorId) {
    super(`vendor ${vendor} answered about another subject`);
    this.name = 'VendorMismatchError';
  }
}

/** `adapter`'s optional `method`, or a CapabilityUnavailableError (thrown before any I/O). */
export function use<M extends OptionalMethod>(adapter: VendorAdapter, method: M): NonNullable<VendorAdapter[M]> {
  const capability = METHOD_OF[method];
  const fn = adapter[method];
  if (!adapter.capabilities[capability] || !fn) throw new CapabilityUnavailableError(adapter.id, capability);
  return fn.bind(adapter) as NonNullable<VendorAdapter[M]>;
}

/** Throws CapabilityUnavailableError unless `adapter` has `capability` (before any I/O). */
export function need(adapter: Pick<VendorAdapter, 'id' | 'capabilities'>, capability: Capability): void {
  if (!adapter.capabilities[capability]) throw new CapabilityUnavailableError(adapter.id, capability);
}

/** A link's expiry, capped to `linkMaxMs` ahead (an unreadable one: an hour ahead, as lifecycle.ts assumes). */
export function cappedExpiry(ctx: Pick<AdapterContext, 'now' | 'linkMaxMs'>, vendorExpiry: number | undefined): number {
  const now = ctx.now();
  const expiry = vendorExpiry !== undefined && Number.isFinite(vendorExpiry) ? vendorExpiry : now + 3_600_000;
  return Math.min(expiry, now + ctx.linkMaxMs);
}
