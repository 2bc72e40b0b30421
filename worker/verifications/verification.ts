/**
 * A verification: what the worker keeps about one onboarding link so the
 * outcome is known, and told to the partner's server, without trusting any
 * browser. Never a name, a date of birth or a phone number (those live at the
 * vendor). The rules here are pure and take the time as an argument; the
 * Durable Object (`verification-store.ts`) runs them.
 */
import { ulid } from '../lib/ids';

export const CHECKING = 'CHECKING';

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
  /** The vendor's entity id (opaque). Absent while a server-started verification has no link, and after a redaction. */
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
  /** Started by the partner's server (`POST /v1/verifications`): what it asked for. */
  server?: { returnUrl?: string; sms?: true };
  /** When the first link was made. */
  linkCreatedAt?: number;
  /** The vendor's answer for a link made on this device, so a resume answers the same link again. */
  link?: { url: string; urlExpiry: string; status: string };
  /** Canceled by the partner's server: polling stops, the client secret stops working. */
  canceledAt?: number;
  /** `customerRef` and `entityId` forgotten (`POST /v1/…/redact`). */
  redactedAt?: number;
  checkId?: string;
  token?: string;
  /** `CHECKING` or a final check status. */
  status: string;
  finalAt?: number;
  expiredAt?: number;
  expiredReason?: 'not_finished' | 'not_claimed';
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
  /** Links made again after this one's expired (`POST /api/onboarding-link` with its session). */
  renewals?: number;
  /** Continued on another device (`worker/handoff/`): how, and its single-use secrets. */
  handoff?: Handoff;
  /** The open-verification budgets it holds (`lib/allowances.ts`), given back when it ends. */
  holds?: string[];
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
  /** The single-use token of the handoff URL, and the vendor's hosted flow it forwards to. */
  openToken: string;
  hostedUrl: string;
  opened?: boolean;
}

/** A link the vendor texted to whatever number the starter typed. */
export interface SmsHandoff extends HandoffReturn {
  kind: 'sms';
  code: string;
  tries: number;
}

/** New links one verification may get after its first (each a vendor call). */
export const MAX_RENEWALS = 5;

/** What the first link of a verification the partner's server started sets (its page used the client secret). */
export interface LinkStart {
  entityId: string;
  partnerOrigin: string;
  linkExpiresAt: number;
  deadline: number;
  handoff?: Handoff;
  link?: { url: string; urlExpiry: string; status: string };
  /** The open-verification allowances this link holds (given back when it ends). */
  holds?: string[];
}

/** What a new link changes: its expiry (and the polling deadline with it), and a handoff's link. */
export interface Renewal {
  linkExpiresAt: number;
  deadline: number;
  /** A QR or copied link's new single-use token and hosted flow; the return secret it was made with. */
  link?: { openToken: string; hostedUrl: string; returnSecret: string };
  /** A link on this device: the vendor's answer, kept so a resume answers it again. */
  sameDevice?: { url: string; urlExpiry: string; status: string };
}

/** Wrong codes allowed before a handoff ends (the verification ends with the last). */
export const CLAIM_TRIES = 5;

/** Whether the verification waits for its code: a handed-off link not yet claimed. */
export const awaitingClaim = (v: Verification): v is Verification & { handoff: Handoff & { code: string } } =>
  v.handoff?.code !== undefined && !v.handoff.claimed;

/** Six digits, uniformly random. */
export function claimCode(): string {
  const n = crypto.getRandomValues(new Uint32Array(1))[0]!;
  // 4,294,000,000 is a multiple of 10^6: values at or above it would skew the digits.
  return n >= 4_294_000_000 ? claimCode() : String(n % 1_000_000).padStart(6, '0');
}

export const newVerificationId = () => `vrf_${ulid()}`;
export const VERIFICATION_ID = /^vrf_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A link expiry the vendor wrote, or an hour after creation when it is unreadable. */
export function linkExpiry(urlExpiry: string | undefined, createdAt: number): number {
  const t = urlExpiry ? Date.parse(urlExpiry) : NaN;
  return Number.isFinite(t) && t > createdAt ? t : createdAt + 60 * 60 * 1000;
}

export const isFinal = (v: Pick<Verification, 'status'>) => v.status !== CHECKING;
export const isOpen = (v: Verification) => !isFinal(v) && v.expiredAt === undefined && v.canceledAt === undefined;
/** Whether a vendor link (and entity) exists: a server-started verification has none until its page uses the secret. */
export const hasLink = (v: Verification): v is Verification & { entityId: string } => v.entityId !== undefined;

/** The status `/v1` shows (docs/server-api.md "The partner's server API"). */
export function lifecycle(v: Verification): 'created' | 'open' | 'final' | 'expired' | 'canceled' {
  if (v.canceledAt !== undefined) return 'canceled';
  if (isFinal(v)) return 'final';
  if (v.expiredAt !== undefined) return 'expired';
  return v.linkCreatedAt === undefined && v.entityId === undefined ? 'created' : 'open';
}

/**
 * Polls one verification may make at once because a browser brought back a
 * check id or token it had not brought before (a return from the hosted
 * flow). Past these, a hint waits for the poll interval like any other
 * browser's call: 20 made-up check ids cost at most this many extra vendor
 * calls, and never spend the polls the alarm needs to find a real outcome.
 */
export const HINT_POLLS = 2;

/**
 * How often the vendor may be asked about one verification ("Polling
 * budget"): `pollMs` (RESULT_POLL_SECONDS) while a browser waits on
 * `/api/result` or a person has just returned; with no one waiting the alarm
 * doubles its wait after each poll, up to `maxMs` (RESULT_POLL_MAX_SECONDS);
 * a failing vendor doubles the wait the same way, whoever asks.
 */
export interface PollSchedule {
  pollMs: number;
  maxMs: number;
}

/** Who wants the vendor asked: a browser on `/api/result`, a person back from the hosted flow, or the alarm alone. */
export type PollCause = 'browser' | 'returned' | 'alarm';

/** The hard ceiling on polls of one verification: its lifetime at the base interval, and a little. */
export const maxPolls = (v: Verification, s: PollSchedule) => Math.ceil((v.deadline - v.createdAt) / s.pollMs) + 3;

const doubled = (s: PollSchedule, times: number) => Math.min(s.maxMs, s.pollMs * 2 ** Math.min(times, 30));

/** The wait after the last poll before `cause` may ask again. */
export function pollWait(v: Verification, s: PollSchedule, cause: PollCause): number {
  const failed = v.failedPolls ?? 0;
  return doubled(s, cause === 'alarm' ? Math.max(failed, v.idlePolls ?? 0) : failed);
}

/** Whether the vendor may be asked now for `cause`: a person who just returned at once, otherwise after the wait. */
export function pollDue(v: Verification, now: number, s: PollSchedule, cause: PollCause): boolean {
  // A server-started verification without a link has nothing to ask the vendor about.
  if (!isOpen(v) || !hasLink(v) || v.polls >= maxPolls(v, s)) return false;
  return cause === 'returned' || v.lastPolledAt === undefined || now - v.lastPolledAt >= pollWait(v, s, cause);
}

/**
 * The record as a poll for `cause` starts (counted before the call: a slow or
 * failing vendor still costs a poll). A return's poll is counted in its own
 * budget (`hintPolls`), so returns never spend the polls the alarm needs.
 */
export const pollStarted = (v: Verification, now: number, cause: PollCause): Verification => ({
  ...v,
  lastPolledAt: now,
  ...(cause === 'returned' ? { hintPolls: (v.hintPolls ?? 0) + 1 } : { polls: v.polls + 1 }),
  idlePolls: cause === 'alarm' ? (v.idlePolls ?? 0) + 1 : 0,
});

/** When the alarm should next look at an open verification: its next poll on the schedule, or its deadline. */
export function nextAlarmAt(v: Verification, now: number, s: PollSchedule): number {
  const due =
    v.polls >= maxPolls(v, s) || !hasLink(v)
      ? v.deadline
      : v.lastPolledAt === undefined
        ? v.createdAt + s.pollMs
        : v.lastPolledAt + pollWait(v, s, 'alarm');
  // Never in the past (an alarm that set itself to now would spin).
  return Math.min(v.deadline, Math.max(due, now + 1000));
}

/** Whether a browser's new check id or token may make the vendor be asked at once. */
export const hintPollDue = (v: Verification): boolean => isOpen(v) && hasLink(v) && (v.hintPolls ?? 0) < HINT_POLLS;

/** The webhook event for a verification that just ended, byte for byte what every attempt sends. */
export interface WebhookEvent {
  verificationId: string;
  type: 'verification.completed' | 'verification.expired' | 'verification.canceled';
  /** `webhook-id`: derived from (verificationId, type), the same on every attempt. */
  id: string;
  /** The exact body. */
  body: string;
  partnerId: string;
  /** The worker's own origin when the verification was made (to find its partner again). */
  workerOrigin: string;
}

/** The event of an ended verification (undefined while it has not ended). */
export function webhookEvent(v: Verification): WebhookEvent {
  const canceled = v.canceledAt !== undefined;
  const type = canceled ? 'verification.canceled' : isFinal(v) ? 'verification.completed' : 'verification.expired';
  const at = canceled ? v.canceledAt! : isFinal(v) ? v.finalAt! : v.expiredAt!;
  const data = {
    verificationId: v.id,
    ...(v.entityId !== undefined ? { entityId: v.entityId } : {}),
    ...(isFinal(v) && !canceled ? { checkStatus: v.status } : {}),
    ...(v.customerRef ? { customerRef: v.customerRef, customerRefSource: v.customerRefSource ?? 'page' } : {}),
    ...(v.partnerOrigin ? { partnerOrigin: v.partnerOrigin } : {}),
    // Records made before livemode existed have none: they count as test-mode (false), never as live.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare
    livemode: v.livemode === true,
    ...(type === 'verification.expired' ? { reason: v.expiredReason ?? 'not_finished' } : {}),
  };
  return {
    verificationId: v.id,
    type,
    id: `msg_${v.id.slice(4)}_${type.slice('verification.'.length)}`,
    body: JSON.stringify({ type, timestamp: new Date(at).toISOString(), data }),
    partnerId: v.partnerId,
    workerOrigin: v.workerOrigin,
  };
}
