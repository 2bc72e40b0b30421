/**
 * A verification: what the worker keeps about one onboarding link so the
 * outcome is known, and told to the partner's server, without trusting any
 * browser. Never a name, a date of birth or a phone number (those live at the
 * vendor). The rules here are pure and take the time as an argument; the
 * Durable Object (`verification-store.ts`) runs them.
 */
import { ulid } from 'ulid';

export const CHECKING = 'CHECKING';

export type WebhookState = 'none' | 'queued' | 'delivered' | 'gone' | 'dead';

export interface Verification {
  /** `vrf_` + a ULID. */
  id: string;
  /** The partner it was made for: its credentials ask the vendor, its webhook endpoint hears the outcome. */
  partnerId: string;
  /** The partner page origin that created it: the token's `aud`, the webhook's `partnerOrigin`. */
  partnerOrigin: string;
  customerRef?: string;
  /** The vendor's entity id (opaque). */
  entityId: string;
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
  /** When the hosted-flow link stops working. */
  linkExpiresAt: number;
  /** Polling stops here: link expiry plus the grace period. */
  deadline: number;
  checkId?: string;
  token?: string;
  /** `CHECKING` or a final check status. */
  status: string;
  finalAt?: number;
  expiredAt?: number;
  expiredReason?: 'not_finished' | 'not_claimed';
  lastPolledAt?: number;
  polls: number;
  webhook: { state: WebhookState; attempts: number; lastStatus?: number; at?: number };
  /** Links made again after this one's expired (`POST /api/onboarding-link` with its session). */
  renewals?: number;
  /** Continued on another device (`worker/handoff/`): how, and its single-use secrets. */
  handoff?: Handoff;
  /** Demo partners only: what their receiver inside the worker accepted (the demo shows it). */
  demoDeliveries?: DemoDelivery[];
}

/** Continued on another device; the browser that arrives back with `returnSecret` gets `browserKey` (its cookie). */
export type Handoff = LinkHandoff | SmsHandoff;

interface HandoffReturn {
  /** The single-use secret of the return URL. */
  returnSecret: string;
  browserKey?: string;
  returned?: 'success' | 'error';
}

/** A QR code or a copied link, which the starter holds: no code is needed to credit it. */
export interface LinkHandoff extends HandoffReturn {
  kind: 'link';
  /** The single-use token of the handoff URL, and the vendor's hosted flow it forwards to. */
  openToken: string;
  hostedUrl: string;
  opened?: boolean;
}

/**
 * A link the vendor texted to whatever number the starter typed: credited
 * only once the 6-digit code shown on the first device is entered on the
 * return page, by the browser that arrived there (relay resistance).
 */
export interface SmsHandoff extends HandoffReturn {
  kind: 'sms';
  code: string;
  /** Wrong codes entered so far; at CLAIM_TRIES the handoff ends. */
  tries: number;
  claimed?: boolean;
  /** A final status the vendor gave before the code was entered: credited on the claim. */
  pendingStatus?: string;
}

/** New links one verification may get after its first (each a vendor call). */
export const MAX_RENEWALS = 5;

/** What a new link changes: its expiry (and the polling deadline with it), and a handoff's link. */
export interface Renewal {
  linkExpiresAt: number;
  deadline: number;
  /** A QR or copied link's new single-use token and hosted flow; the return secret it was made with. */
  link?: { openToken: string; hostedUrl: string; returnSecret: string };
}

/** Wrong codes allowed before a texted handoff ends. */
export const CLAIM_TRIES = 5;

/** Whether the verification waits for its code: a texted link not yet claimed. */
export const awaitingClaim = (v: Verification): v is Verification & { handoff: SmsHandoff } =>
  v.handoff?.kind === 'sms' && !v.handoff.claimed;

/** Six digits, uniformly random. */
export function claimCode(): string {
  const n = crypto.getRandomValues(new Uint32Array(1))[0]!;
  // 4,294,000,000 is a multiple of 10^6: values at or above it would skew the digits.
  return n >= 4_294_000_000 ? claimCode() : String(n % 1_000_000).padStart(6, '0');
}

export interface DemoDelivery {
  webhookId: string;
  type: string;
  checkStatus?: string;
  reason?: string;
  /** The event's `data.livemode` (false while the sandbox is the vendor). */
  livemode?: boolean;
  /** The receiver checked the signature (the demo receiver records nothing it could not verify). */
  signature: 'verified';
  receivedAt: number;
}

export const newVerificationId = () => `vrf_${ulid()}`;
export const VERIFICATION_ID = /^vrf_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A link expiry the vendor wrote, or an hour after creation when it is unreadable. */
export function linkExpiry(urlExpiry: string | undefined, createdAt: number): number {
  const t = urlExpiry ? Date.parse(urlExpiry) : NaN;
  return Number.isFinite(t) && t > createdAt ? t : createdAt + 60 * 60 * 1000;
}

export const isFinal = (v: Pick<Verification, 'status'>) => v.status !== CHECKING;
export const isOpen = (v: Verification) => !isFinal(v) && v.expiredAt === undefined;

/** The most polls one verification can cost: its lifetime at the poll interval, and a little. */
export const maxPolls = (v: Verification, pollMs: number) => Math.ceil((v.deadline - v.createdAt) / pollMs) + 3;

/** Whether the vendor may be asked now: at most once per interval, unless a person just returned. */
export function pollDue(v: Verification, now: number, pollMs: number, returned: boolean): boolean {
  if (!isOpen(v) || v.polls >= maxPolls(v, pollMs)) return false;
  return returned || v.lastPolledAt === undefined || now - v.lastPolledAt >= pollMs;
}

/** The webhook event for a verification that just ended, byte for byte what every attempt sends. */
export interface WebhookEvent {
  verificationId: string;
  type: 'verification.completed' | 'verification.expired';
  /** `webhook-id`: derived from (verificationId, type), the same on every attempt. */
  id: string;
  /** The exact body. */
  body: string;
  partnerId: string;
  /** The worker's own origin when the verification was made (to find its partner again). */
  workerOrigin: string;
}

export function webhookEvent(v: Verification): WebhookEvent {
  const type = isFinal(v) ? 'verification.completed' : 'verification.expired';
  const at = isFinal(v) ? v.finalAt! : v.expiredAt!;
  const data = {
    verificationId: v.id,
    entityId: v.entityId,
    ...(isFinal(v) ? { checkStatus: v.status } : {}),
    ...(v.customerRef ? { customerRef: v.customerRef } : {}),
    partnerOrigin: v.partnerOrigin,
    livemode: v.livemode === true,
    ...(isFinal(v) ? {} : { reason: v.expiredReason ?? 'not_finished' }),
  };
  return {
    verificationId: v.id,
    type,
    id: `msg_${v.id.slice(4)}_${type === 'verification.completed' ? 'completed' : 'expired'}`,
    body: JSON.stringify({ type, timestamp: new Date(at).toISOString(), data }),
    partnerId: v.partnerId,
    workerOrigin: v.workerOrigin,
  };
}
