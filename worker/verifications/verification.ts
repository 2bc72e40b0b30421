/**
 * A verification: what the worker keeps about one onboarding link so the
 * outcome is known, and told to the partner's server, without trusting any
 * browser. Never a name, a date of birth or a phone number (those live at the
 * vendor). This file says what is kept (its events are `webhook-event.ts`'s); its states,
 * transitions and deadlines are `lifecycle.ts`'s, run by the Durable Object
 * (`verification-durable.ts`) through `verification-logic.ts`.
 */
import { ulid } from '../lib/ids';
import type { VendorId } from '../vendors/adapter';

/** Who set a verification's `customerRef`. */
export type CustomerRefSource = 'server' | 'page';

/** The last event's delivery; `failed`: its last attempt failed and another is scheduled. */
export type WebhookState = 'none' | 'queued' | 'failed' | 'delivered' | 'gone' | 'dead';

export interface Verification {
  /** `vrf_` + a ULID. */
  id: string;
  /** The partner it was made for: its credentials ask the vendor, its webhook endpoint hears the outcome. */
  partnerId: string;
  /**
   * The partner page origin that made its link: the token's `aud`, the
   * webhook's `partnerOrigin`. Empty while a verification the partner's
   * server started has no link yet.
   */
  partnerOrigin: string;
  customerRef?: string;
  /**
   * Who set `customerRef`: `server` (the partner's server, `/v1`) or `page`
   * (a page's `customer-ref`, which any script claiming the partner's origin
   * can choose). Absent means `page`. Webhook receivers match events by
   * `verificationId`, never by a page-set reference.
   */
  customerRefSource?: CustomerRefSource;
  /**
   * The vendor it was linked with (docs/vendors.md): recorded at its first
   * link and never changed: renewals, attempts, polls, cancel and redact go
   * to it. Absent while a server-started verification has no link, and on
   * records made before there was a choice: those are `idv` (`vendorOf`).
   */
  vendor?: VendorId;
  /**
   * The vendor's subject the answers are about (opaque; idv: its entity, the
   * same for every link; stripe: the attempt's session). Absent while a
   * server-started verification has no link, and after a redaction.
   */
  entityId?: string;
  /** The worker's own origin when it was made: `iss`, and where the sandbox lives. */
  workerOrigin: string;
  /**
   * False when the sandbox was the vendor (a test or demo outcome), true with
   * a real vendor: the result token's `livemode` claim and the webhook's
   * `data.livemode`. Fixed when the verification is made. A record without it
   * (made before it existed) counts as false: never live by accident.
   */
  livemode: boolean;
  createdAt: number;
  /** When the hosted-flow link stops working (0: no link yet). */
  linkExpiresAt: number;
  /**
   * Polling stops here: link expiry plus the grace period; for a verification
   * the partner's server started, never before its own expiry (a link can be
   * made or renewed until then).
   */
  deadline: number;
  /**
   * Started by the partner's server (`POST /v1/verifications`): what it asked for. `entityId`: a returning
   * person's entity (one of the partner's own), which the first link updates.
   */
  server?: { returnUrl?: string; sms?: true; entityId?: string };
  /** When the first link was made. */
  linkCreatedAt?: number;
  /**
   * The vendor's answer for a link made on this device, so a resume answers the same link again (for a vendor
   * whose URL is one-time, `url` is the flow's origin only: a resume asks the vendor for a fresh one).
   */
  link?: SameDeviceLink;
  /** `customerRef` and `entityId` forgotten (`POST /v1/…/redact`). */
  redactedAt?: number;
  /**
   * After a redaction: the vendor's subjects (Stripe sessions) it could not be asked to erase (a vendor fault),
   * the only ids kept, so a later `POST /v1/…/redact` asks again; gone once the vendor has erased them.
   */
  vendorRedactPending?: string[];
  /**
   * What the hosted flow appended to the return URL, as a browser last brought
   * it (`vendors/return-params.ts`: opaque, bounded): it only makes the worker
   * ask sooner, never what it asks about.
   */
  returnParams?: Record<string, string>;
  /**
   * The vendor's check ids of this attempt's earlier links (a text before
   * "Send again", an expired QR link's flow still open on a phone), as the
   * vendor itself named them when asked about the entity just before the
   * newer link replaced them, never as a browser said. Each poll asks about
   * them by id as well as about the entity (which answers the newest link), so
   * whichever link the person completes is credited. A next attempt starts
   * with none.
   */
  earlierChecks?: string[];
  /** Where it is in its lifecycle (`lifecycle.ts`), with what only that state has. */
  state: VerificationState;
  /** Attempts that ended, in order (`check`: the vendor's, so an answer about an earlier check is not a new attempt). */
  attempts?: Attempt[];
  /** Attempts allowed (1–3; default 2): the partner's setting or the `/v1` create's. */
  maxAttempts?: number;
  /**
   * A next attempt only: the vendor has said its newest check is not finished
   * since this attempt's link was made, so a final answer naming no check is
   * this attempt's own (and not the previous attempt's, still reported as the
   * newest until the person begins). Cleared by the next attempt's link.
   */
  attemptCheckSeen?: true;
  /** When the vendor last answered a poll about this entity (expiry knows whether it answered after the deadline). */
  vendorAnsweredAt?: number;
  /** The last webhook event it caused: what a redelivery sends. */
  lastEvent?: WebhookEventType;
  lastPolledAt?: number;
  polls: number;
  /** Polls made at once for a return (a person back, or a browser bringing a new check id or token): their own budget, HINT_POLLS. */
  hintPolls?: number;
  /** When a person first came back from the hosted flow (this device or the phone): counted once for the operator. */
  flowReturnedAt?: number;
  /** Polls in a row the alarm made with no one waiting (each doubles the alarm's next wait). */
  idlePolls?: number;
  /** Polls in a row the vendor failed (each doubles the next wait, whoever asks). */
  failedPolls?: number;
  webhook: { state: WebhookState; attempts: number; lastStatus?: number; at?: number };
  /**
   * The renewal lease (`lifecycle.ts` `leaseTaken`): its fence (one more per
   * lease) and until when it holds (0: ended). Kept with the record, so an
   * object evicted or restarted while a renewal is under way still knows it.
   */
  renewalLease?: { fence: number; until: number };
  /** Links made again after this one's expired (`POST /api/onboarding-link` with its session). */
  renewals?: number;
  /** Continued on another device (`worker/handoff/`): how, and its single-use secrets. */
  handoff?: Handoff;
  /** The open-verification budgets it holds (`lib/allowances.ts`), given back when it ends. */
  holds?: string[];
  /**
   * The widget's form key (random, not personal; the values it opens stay encrypted in the person's tab): given
   * back to the session while open or `requires_input`, dropped when the verification ends or is redacted.
   */
  formKey?: string;
}

/** Why a verification expired. */
export type ExpiredReason = 'not_finished' | 'not_claimed' | 'vendor_unavailable';

/**
 * Where a verification is (`lifecycle.ts` moves it): `created` (started by
 * the partner's server, no link yet) → `open` → (`requires_input` ⇄ `open`)
 * → one of `final`, `expired`, `canceled`. Each state holds only what it can
 * have: a final one its check status, an expired one why, and no record can
 * be both canceled and final.
 */
export type VerificationState =
  | { name: 'created' }
  | { name: 'open' }
  /** Waiting for the person's next attempt: the last one ended in a way its vendor says may be tried again, attempts are left. */
  | { name: 'requires_input'; since: number }
  | { name: 'final'; at: number; checkStatus: string }
  | { name: 'expired'; at: number; reason: ExpiredReason }
  /** Canceled by the partner's server (or with a redaction): polling stops, the client secret stops working. */
  | { name: 'canceled'; at: number };

/**
 * A record as storage may hold it: written by this code (with `state`), or
 * by the code before the explicit state, which kept the state as a status
 * and timestamps (`lifecycle.ts` `fromStored` derives it once). Records from
 * before there were vendors name idv's things in its words: the idv adapter's
 * folder reads them (`vendors/idv/stored-record.ts`).
 */
export type StoredVerification =
  | Verification
  | (Omit<Verification, 'state'> & {
      status: string;
      finalAt?: number;
      expiredAt?: number;
      expiredReason?: ExpiredReason;
      canceledAt?: number;
      requiresInputAt?: number;
    });

/** One attempt that ended: the vendor's status for it, and when. */
export interface Attempt {
  checkStatus: string;
  endedAt: number;
  /** The vendor's check it was about, when the vendor named one (an adapter's opaque `VendorRef.check`). */
  check?: string;
}

/** Continued on another device; the browser that arrives back with `returnSecret` gets `browserKey` (its cookie). */
export type Handoff = LinkHandoff | SmsHandoff;

/**
 * Every handed-off link (a texted one, a QR code, a copied link) can reach
 * someone other than the starter: it is credited only once the 6-digit code
 * shown on the first device is entered on the return page, by the browser
 * that arrived there (relay resistance).
 */
interface HandoffReturn {
  /** The single-use secret of the return URL. */
  returnSecret: string;
  browserKey?: string;
  returned?: 'success' | 'error';
  /** The code shown on the first device. (Absent only on QR links made before every handoff had one.) */
  code?: string;
  /** Wrong codes entered so far; at CLAIM_TRIES the verification ends as not claimed. */
  tries?: number;
  claimed?: boolean;
  /** A final status the vendor gave before the code was entered: credited on the claim. */
  pendingStatus?: string;
}

/** A QR code or a copied link: the worker's single-use handoff URL, forwarded to the hosted flow on "Continue". */
export interface LinkHandoff extends HandoffReturn {
  kind: 'link';
  /**
   * The single-use token of the handoff URL, and the vendor's hosted flow it forwards to: for a vendor whose URL
   * is one-time (`openUrl`, Stripe), its origin only: the URL is asked for on "Continue", never kept.
   */
  openToken: string;
  hostedUrl: string;
  opened?: boolean;
  /**
   * The links this one replaced (newest last), and whether a phone had opened each: their page says so ("already
   * opened on a phone", else "a newer link was sent"), not a vague "no longer works".
   */
  replaced?: { token: string; opened?: true }[];
}

/** A link the vendor texted to whatever number the starter typed. */
export interface SmsHandoff extends HandoffReturn {
  kind: 'sms';
  code: string;
  tries: number;
  /**
   * The number it was texted to as a keyed hash (`textedTo`, never the number):
   * "Send again" goes to this number only; another is "Change my number" (a
   * new verification). Absent on texts made before it was kept.
   */
  to?: string;
}

/** New links one verification may get after its first (each a vendor call). */
export const MAX_RENEWALS = 5;

/** What the first link of a verification the partner's server started sets (its page used the client secret). */
export interface LinkStart {
  /** The vendor that made the link: the verification's from now on (absent: `idv`). */
  vendor?: VendorId;
  entityId: string;
  partnerOrigin: string;
  /** The vendor's link expiry (the lifecycle caps it and derives the deadline). */
  urlExpiry: string;
  handoff?: Handoff;
  link?: SameDeviceLink;
  /** The open-verification allowances this link holds (given back when it ends). */
  holds?: string[];
  /** The widget's form key of this link request. */
  formKey?: string;
}

/** What a new link changes: its expiry (and the polling deadline with it), and a handoff's link. */
export interface Renewal {
  /** The vendor's link expiry (the lifecycle caps it and derives the deadline). */
  urlExpiry: string;
  /** A QR or copied link's new single-use token and hosted flow; the return secret it was made with. */
  link?: { openToken: string; hostedUrl: string; returnSecret: string };
  /** A texted link sent again (or a next attempt's text): the return secret it was made with. */
  sms?: { returnSecret: string };
  /** A link on this device: the vendor's answer, kept so a resume answers it again. */
  sameDevice?: { url: string; urlExpiry: string; status: string };
  /** The check of the link this one replaces, as the vendor named it when asked about the entity just before. */
  replacedCheck?: string;
  /** A next attempt's form key (the corrected values); without one, the earlier attempt's key goes. */
  formKey?: string;
  /**
   * The new link's subject, when the vendor made a new one (a vendor with no
   * subject to reuse: one session per link); the replaced subject stays
   * askable on a renewal, as a replaced check does.
   */
  subject?: string;
}

/** Wrong codes allowed before a handoff ends (the verification ends with the last). */
export const CLAIM_TRIES = 5;

/** Six digits, uniformly random. */
export function claimCode(): string {
  const n = crypto.getRandomValues(new Uint32Array(1))[0]!;
  // 4,294,000,000 is a multiple of 10^6: values at or above it would skew the digits.
  return n >= 4_294_000_000 ? claimCode() : String(n % 1_000_000).padStart(6, '0');
}

/** The vendor a verification is linked with: records made before there was a choice are `idv`'s. */
export const vendorOf = (v: Pick<Verification, 'vendor'>): VendorId => v.vendor ?? 'idv';

export const newVerificationId = () => `vrf_${ulid()}`;
export const VERIFICATION_ID = /^vrf_[0-9A-HJKMNP-TV-Z]{26}$/;

export type WebhookEventType =
  'verification.completed' | 'verification.expired' | 'verification.canceled' | 'verification.requires_input' | 'verification.redacted';

/** A webhook event, byte for byte what every attempt sends. */
export interface WebhookEvent {
  verificationId: string;
  type: WebhookEventType;
  /** `webhook-id`: derived from (verificationId, type, and the attempt for requires_input), the same on every attempt. */
  id: string;
  /** The exact body. */
  body: string;
  partnerId: string;
  /** The worker's own origin when the verification was made (to find its partner again). */
  workerOrigin: string;
}

/**
 * This device's hosted flow: its URL (for a vendor whose URL works once, its
 * origin only) and, for a link made on the page, the page it returns to, so a
 * renewal to the same page answers the same link and one to another page
 * makes a new one.
 */
export interface SameDeviceLink {
  url: string;
  urlExpiry: string;
  status: string;
  returnTo?: string;
}
