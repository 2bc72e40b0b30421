/**
 * A verification's lifecycle, in one place: its states, every transition
 * (start, open, renew, attempt, claim, finish, expire, cancel, redact) and
 * the deadline arithmetic. Route handlers ask this module; none computes a
 * state or a deadline itself.
 *
 * Every transition is pure: the record as it is now in, the record after out,
 * or `undefined` when the current state does not allow it. The Durable
 * Object (`verification-durable.ts`, through `verification-logic.ts`) is the
 * only writer and applies each transition to the record as it is at the
 * moment of the write, never to a copy taken before a vendor call: a cancel,
 * a redaction, a renewal, a code try or an opened handoff that happened while
 * the vendor was being asked is never undone.
 *
 * What decides a verification has expired: `expiryDue`. Where a redaction
 * deletes data: `redacted`. Who may have the widget's form key: `formKeyFor`
 * (every end transition drops it).
 */
import {
  CLAIM_TRIES,
  MAX_RENEWALS,
  type ExpiredReason,
  type Handoff,
  type LinkStart,
  type Renewal,
  type StoredVerification,
  type Verification,
  type VerificationState,
  type WebhookEventType,
  vendorOf,
} from './verification';
import { DEPRECATED_OPEN_STATUS, isRetryable } from '../vendors/result';
import { MAX_RETURN_KEYS } from '../vendors/return-params';
import { upgradedRecord } from '../vendors/idv/stored-record';

export type { ExpiredReason } from './verification';

/** A verification's state, as `/v1` and the browser API show it. */
export type State = VerificationState['name'];

/** The settings the lifecycle's arithmetic uses (worker/config.ts reads them). */
export interface LifecycleSettings {
  /** VERIFICATION_GRACE_SECONDS: polling goes on this long after the link expired. */
  graceMs: number;
  /** LINK_MAX_SECONDS: a vendor link expiry further ahead than this is capped to it. */
  linkMaxMs: number;
  /** VERIFICATION_MAX_SECONDS: how long after its deadline a verification waits for a vendor that cannot answer. */
  afterDeadlineMs: number;
}

export const DEFAULT_LIFECYCLE: LifecycleSettings = { graceMs: 900_000, linkMaxMs: 86_400_000, afterDeadlineMs: 86_400_000 };

/** Attempts a verification gets unless its partner or its `/v1` create says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 2;
export const MAX_ATTEMPTS_LIMIT = 3;

/** How long an ended verification is kept (its token can be asked again, webhooks retry for days). */
export const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

// ---- states ----

export const isFinal = (v: Verification) => v.state.name === 'final';
/** Not ended: created, open or requires_input. */
export const isOpen = (v: Verification) => v.state.name === 'created' || v.state.name === 'open' || v.state.name === 'requires_input';
/** The deprecated check status: the vendor's final word once final, else its value while not ended (the idv adapter's). */
export const checkStatusOf = (v: Verification) => (v.state.name === 'final' ? v.state.checkStatus : DEPRECATED_OPEN_STATUS);
/** Whether a vendor link (and entity) exists: a server-started verification has none until its page uses the secret. */
export const hasLink = (v: Verification): v is Verification & { entityId: string } => v.entityId !== undefined;
/** Waiting for the person's next attempt (the last one ended in a way its vendor says may be tried again). */
export const requiresInput = (v: Verification) => v.state.name === 'requires_input';
/** Whether the verification waits for its code: a handed-off link not yet claimed. */
export const awaitingClaim = (v: Verification): v is Verification & { handoff: Handoff & { code: string } } =>
  v.handoff?.code !== undefined && !v.handoff.claimed;

/** The state `/v1` and `/api/result` show (docs/server-api.md "The partner's server API"). */
export const lifecycle = (v: Verification): State => v.state.name;

/**
 * A record as storage holds it, with its explicit state: one written before
 * the state was explicit (a status and timestamps) has it derived, once,
 * as the code of that time derived it; one written before there were vendors
 * has idv's field names read in ours (the idv adapter's folder knows them).
 */
export function fromStored(given: StoredVerification): Verification {
  const stored = upgradedRecord(given);
  if ('state' in stored) return stored;
  const { status, finalAt, expiredAt, expiredReason, canceledAt, requiresInputAt, ...rest } = stored;
  const state: VerificationState =
    canceledAt !== undefined
      ? { name: 'canceled', at: canceledAt }
      : status !== DEPRECATED_OPEN_STATUS
        ? { name: 'final', at: finalAt ?? rest.createdAt, checkStatus: status }
        : expiredAt !== undefined
          ? { name: 'expired', at: expiredAt, reason: expiredReason ?? 'not_finished' }
          : requiresInputAt !== undefined
            ? { name: 'requires_input', since: requiresInputAt }
            : rest.linkCreatedAt === undefined && rest.entityId === undefined
              ? { name: 'created' }
              : { name: 'open' };
  return { ...rest, state };
}

/**
 * The widget's form key, for the session holder: only while the verification is open or waiting for the next
 * attempt. (Every end transition drops it from the record as well.)
 */
export function formKeyFor(v: Verification): string | undefined {
  const state = lifecycle(v);
  return state === 'open' || state === 'requires_input' ? v.formKey : undefined;
}

/** The record without the widget's form key: what every end leaves. */
const keyless = ({ formKey: _key, ...rest }: Verification): Verification => rest;

/** When it entered state `name`, while it is in it (undefined otherwise). */
export function stateAt(v: Verification, name: 'final' | 'expired' | 'canceled'): number | undefined {
  return v.state.name === name ? v.state.at : undefined;
}

/** Why it expired, while it is expired. */
export const expiredReason = (v: Verification) => (v.state.name === 'expired' ? v.state.reason : undefined);

export const endedAt = (v: Verification) =>
  v.state.name === 'final' || v.state.name === 'expired' || v.state.name === 'canceled' ? v.state.at : undefined;

/** Attempts this verification allows. */
export const maxAttempts = (v: Verification) => v.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;

// ---- deadlines ----

/** A link expiry the vendor wrote: an hour after `now` when unreadable, never further than LINK_MAX_SECONDS ahead. */
export function linkExpiry(urlExpiry: string | undefined, now: number, s: LifecycleSettings): number {
  const t = urlExpiry ? Date.parse(urlExpiry) : NaN;
  const written = Number.isFinite(t) && t > now ? t : now + 60 * 60 * 1000;
  return Math.min(written, now + s.linkMaxMs);
}

/** The link expiry to show: the vendor's text, or the cap when the vendor's was further ahead. */
export const shownLinkExpiry = (urlExpiry: string, linkExpiresAt: number) =>
  Date.parse(urlExpiry) === linkExpiresAt ? urlExpiry : new Date(linkExpiresAt).toISOString();

/** Polling stops here (unless the vendor could not answer): a link's expiry plus the grace period. */
export const linkDeadline = (linkExpiresAt: number, s: LifecycleSettings) => linkExpiresAt + s.graceMs;

/** The last moment a verification waits for a vendor that cannot answer at its deadline. */
export const vendorWaitEnds = (v: Verification, s: LifecycleSettings) => v.deadline + s.afterDeadlineMs;

/** A vendor link's expiry and the deadline it gives. */
function linkTimes(urlExpiry: string | undefined, now: number, s: LifecycleSettings) {
  const linkExpiresAt = linkExpiry(urlExpiry, now, s);
  return { linkExpiresAt, deadline: linkDeadline(linkExpiresAt, s) };
}

/** What happens at or after the deadline: end it now, or ask the vendor once more first. */
export type ExpiryDecision = { kind: 'expire'; reason: ExpiredReason } | { kind: 'final' } | { kind: 'ask' };

/**
 * What decides a verification has expired (undefined before its deadline, or
 * once it ended). A handed-off link whose code was never entered expires
 * `not_claimed`; one waiting for a new attempt becomes final with its last
 * attempt's status. Otherwise the vendor is asked once more at the deadline:
 * an answer that is still not final expires it `not_finished`; while the
 * vendor cannot answer it stays open, until VERIFICATION_MAX_SECONDS after
 * the deadline (`vendor_unavailable`).
 */
export function expiryDue(v: Verification, now: number, s: LifecycleSettings): ExpiryDecision | undefined {
  if (!isOpen(v) || now < v.deadline) return undefined;
  if (awaitingClaim(v) && (v.handoff.pendingStatus !== undefined || v.handoff.returned !== undefined))
    return { kind: 'expire', reason: 'not_claimed' };
  if (requiresInput(v)) return { kind: 'final' };
  if (!hasLink(v)) return { kind: 'expire', reason: 'not_finished' };
  if (v.vendorAnsweredAt !== undefined && v.vendorAnsweredAt >= v.deadline) return { kind: 'expire', reason: 'not_finished' };
  if (now >= vendorWaitEnds(v, s)) return { kind: 'expire', reason: 'vendor_unavailable' };
  return { kind: 'ask' };
}

// ---- start ----

/** What a new verification made with its first link (`/api/onboarding-link`) carries besides its times. */
export type LinkedInput = Omit<Verification, 'linkExpiresAt' | 'deadline' | 'state' | 'polls' | 'webhook' | 'linkCreatedAt'>;

/** start: a verification whose first link was made at `now` (the page's own, not the server's). */
export function startedWithLink(input: LinkedInput, urlExpiry: string | undefined, now: number, s: LifecycleSettings): Verification {
  return {
    ...input,
    linkCreatedAt: now,
    ...linkTimes(urlExpiry, now, s),
    state: { name: 'open' },
    polls: 0,
    webhook: { state: 'none', attempts: 0 },
  };
}

/** start: a verification the partner's server made (`POST /v1/verifications`), no link yet, open for `expiresInSeconds`. */
export function startedByServer(input: Omit<LinkedInput, 'entityId' | 'partnerOrigin'>, expiresInSeconds: number): Verification {
  return {
    ...input,
    partnerOrigin: '',
    linkExpiresAt: 0,
    deadline: input.createdAt + expiresInSeconds * 1000,
    state: { name: 'created' },
    polls: 0,
    webhook: { state: 'none', attempts: 0 },
  };
}

/** open: the first link of a verification the partner's server started (only while `created`). */
export function linkStarted(v: Verification, l: LinkStart, now: number, s: LifecycleSettings): Verification | undefined {
  if (lifecycle(v) !== 'created') return undefined;
  const t = linkTimes(l.urlExpiry, now, s);
  return {
    ...v,
    state: { name: 'open' },
    vendor: vendorOf(l),
    entityId: l.entityId,
    partnerOrigin: l.partnerOrigin,
    linkCreatedAt: now,
    linkExpiresAt: t.linkExpiresAt,
    // Never before its own expiry: a link can be made or renewed until then.
    deadline: Math.max(v.deadline, t.deadline),
    ...(l.handoff ? { handoff: l.handoff } : {}),
    ...(l.link ? { link: l.link } : {}),
    ...(l.holds ? { holds: l.holds } : {}),
    ...(l.formKey ? { formKey: l.formKey } : {}),
  };
}

// ---- renew and attempt ----

/** Whether a resume needs a new vendor link: its link expired, or the person makes the next attempt. */
export const needsNewLink = (v: Verification, now: number) => requiresInput(v) || now >= v.linkExpiresAt;

/** Whether a new link may be made for it now: open (or waiting for a new attempt) with renewals left. */
export function renewable(v: Verification): 'ok' | 'ended' | 'renewals' {
  if (!isOpen(v) || !hasLink(v)) return 'ended';
  if (!requiresInput(v) && (v.renewals ?? 0) >= MAX_RENEWALS) return 'renewals';
  return 'ok';
}

/**
 * renew, or attempt: a new vendor link for the same entity. In
 * `requires_input` it is the person's next attempt (back to `open`, the
 * earlier check forgotten as a hint); otherwise a renewal of an expired link,
 * at most MAX_RENEWALS ("Send again" of a texted link is one). The new expiry
 * and deadline, and for a QR or copied link the new single-use token and
 * hosted flow (not opened yet). A handoff's code never changes.
 */
export function renewed(v: Verification, r: Renewal, now: number, s: LifecycleSettings): Verification | undefined {
  if (renewable(v) !== 'ok') return undefined;
  const attempt = requiresInput(v);
  const h = v.handoff;
  let handoff = h;
  if (r.link && h?.kind === 'link') {
    // The same return secret: a phone still in the old flow can come back.
    // A new one (the old was spent: a phone already came back) starts afresh.
    // The code shown on the first device, and the wrong tries, carry over either way.
    // The replaced link's token is remembered (a few), so its page can say a newer one was made.
    const replaced = [...(h.replaced ?? []), { token: h.openToken, ...(h.opened ? { opened: true as const } : {}) }].slice(-MAX_RENEWALS);
    handoff =
      r.link.returnSecret === h.returnSecret
        ? { ...h, ...r.link, opened: false, replaced }
        : { kind: 'link', ...r.link, replaced, ...(h.code !== undefined ? { code: h.code, tries: h.tries ?? 0 } : {}) };
  }
  if (r.sms && h?.kind === 'sms' && r.sms.returnSecret !== h.returnSecret) {
    // Every text of it keeps the one code; a spent return secret starts afresh, as for a QR link.
    handoff = { kind: 'sms', returnSecret: r.sms.returnSecret, code: h.code, tries: h.tries, ...(h.to ? { to: h.to } : {}) };
  }
  const t = linkTimes(r.urlExpiry, now, s);
  const { returnParams: _p, earlierChecks: _e, formKey: _key, attemptCheckSeen: _seen, ...rest } = v;
  // A renewal keeps the replaced link's check askable; a next attempt is about its own link alone.
  const newSubject = r.subject !== undefined && r.subject !== v.entityId;
  // A vendor with a new subject per link: the replaced subject is the replaced link's check.
  const replaced = newSubject ? v.entityId : r.replacedCheck;
  const earlierChecks = attempt ? [] : withCheck(v.earlierChecks ?? [], replaced);
  // A next attempt's values are new: its own form key (or none) replaces the earlier one.
  return {
    ...(attempt ? { ...rest, state: { name: 'open' } } : v),
    ...(earlierChecks.length ? { earlierChecks } : {}),
    ...(r.formKey ? { formKey: r.formKey } : {}),
    linkExpiresAt: t.linkExpiresAt,
    deadline: Math.max(v.deadline, t.deadline),
    ...(attempt ? {} : { renewals: (v.renewals ?? 0) + 1 }),
    ...(handoff ? { handoff } : {}),
    ...(r.sameDevice ? { link: r.sameDevice } : {}),
    ...(newSubject ? { entityId: r.subject } : {}),
  };
}

/**
 * renewal.begin: the renewal lease, when none is held (one that lapsed is
 * taken over: its holder's `renew` is then refused, its fence no longer the
 * lease's). Each lease's fence is one more than the last.
 */
export function leaseTaken(v: Verification, now: number, ms: number): Verification | undefined {
  const held = v.renewalLease;
  if (held && held.until > now) return undefined;
  return { ...v, renewalLease: { fence: (held?.fence ?? 0) + 1, until: now + ms } };
}

/** renewal.end: the lease `fence` ended (undefined when it is not the lease's, or has ended). */
export function leaseEnded(v: Verification, fence: number): Verification | undefined {
  const held = v.renewalLease;
  if (held?.fence !== fence || held.until === 0) return undefined;
  return { ...v, renewalLease: { fence, until: 0 } };
}

/** The attempt's earlier checks with `check` added (once; at most MAX_RENEWALS, the links a verification can replace). */
function withCheck(checks: string[], check: string | undefined): string[] {
  if (check === undefined || checks.includes(check)) return checks;
  return [...checks, check].slice(-MAX_RENEWALS);
}

// ---- polls ----

/**
 * A browser's hint: return parameters it had not brought before (it only makes the worker ask sooner). Kept
 * merged with the earlier ones, at most MAX_RETURN_KEYS (the newest win).
 */
export function hinted(v: Verification, params: Readonly<Record<string, string>> = {}): Verification | undefined {
  const kept = v.returnParams ?? {};
  const brought = Object.entries(params).some(([key, value]) => value !== '' && kept[key] !== value);
  if (!isOpen(v) || !brought) return undefined;
  const merged = Object.entries({ ...kept, ...params }).filter(([, value]) => value !== '');
  return { ...v, returnParams: Object.fromEntries(merged.slice(-MAX_RETURN_KEYS)) };
}

/** The first return from the hosted flow (this device's, or the phone's), counted once. */
export const returned = (v: Verification, now: number): Verification | undefined =>
  v.flowReturnedAt === undefined ? { ...v, flowReturnedAt: now } : undefined;

/** A poll the vendor could not answer (a fault, or an answer not about this entity). */
export const pollFailed = (v: Verification): Verification | undefined =>
  isOpen(v) ? { ...v, failedPolls: (v.failedPolls ?? 0) + 1 } : undefined;

/** What the vendor answered about a check. */
export interface VendorAnswer {
  /** The vendor's word once the attempt ended; empty, or the deprecated status's open value, while it has not. */
  checkStatus: string;
  entityId?: string;
  /** The check it answered about, when it says. */
  check?: string;
}

/** The attempt the answer is about has not ended (the vendor gave no final word). */
const unfinished = (a: VendorAnswer) => !a.checkStatus || a.checkStatus === DEPRECATED_OPEN_STATUS;

/**
 * One answer for a poll that asked about the attempt's newest link (by
 * entity, first) and each earlier link's check (by id): an answer not about
 * the entity wins (it is never credited: the poll fails as a mismatch), then
 * the first check that ended (whichever link the person completed), else
 * the newest link's.
 */
export function attemptAnswer(answers: [VendorAnswer, ...VendorAnswer[]], entityId: string): VendorAnswer {
  return answers.find((a) => !aboutEntity(a, entityId)) ?? answers.find((a) => !unfinished(a)) ?? answers[0];
}

/**
 * Whether an answer may be taken about `entityId`: a final status only when
 * it names that entity; "not finished" when it names no entity or that one.
 */
export const aboutEntity = (a: VendorAnswer, entityId: string) => a.entityId === entityId || (a.entityId === undefined && unfinished(a));

/**
 * The vendor answered about `entityId` (the entity the poll asked about).
 * Credited only when the answer names that entity (`aboutEntity`) and it is
 * still this verification's: a redaction, a cancel or an expiry meanwhile
 * wins. An answer about an earlier attempt's check is not a new attempt.
 */
export function answered(v: Verification, a: VendorAnswer, entityId: string, now: number): Verification | undefined {
  if (!isOpen(v) || v.entityId !== entityId || !aboutEntity(a, entityId)) return undefined;
  const polled: Verification = { ...v, failedPolls: 0, vendorAnsweredAt: now };
  if (requiresInput(v)) return polled;
  if (unfinished(a)) {
    // The newest check is not finished: from now on a final answer is this attempt's own.
    return v.attempts?.length && !v.attemptCheckSeen ? { ...polled, attemptCheckSeen: true } : polled;
  }
  if (!ownAttemptAnswer(v, a)) return polled;
  return attemptEnded(polled, a.checkStatus, now, a.check);
}

/**
 * Whether a final answer belongs to the attempt now open (DESIGN "Attempts
 * belong to their own check"). One naming a check belongs to it unless that
 * check ended an earlier attempt. One naming no check, in a next attempt, is
 * this attempt's only when the vendor made it after this attempt's link: it
 * has said the newest check was not finished since (`attemptCheckSeen`), or
 * it answers a status the previous attempt did not end with (the previous
 * check, still reported as the entity's newest, says what it said before).
 */
export function ownAttemptAnswer(v: Verification, a: VendorAnswer): boolean {
  const attempts = v.attempts ?? [];
  if (a.check !== undefined) return !attempts.some((x) => x.check === a.check);
  const previous = attempts.at(-1);
  return previous === undefined || v.attemptCheckSeen === true || a.checkStatus !== previous.checkStatus;
}

/**
 * attempt / finish: an attempt ended with `status`. Not credited while a
 * handed-off link waits for its code (kept for the claim). A retryable
 * ending (its vendor's mapping) with attempts left: `requires_input`;
 * otherwise `final`.
 */
export function attemptEnded(v: Verification, status: string, now: number, check?: string): Verification | undefined {
  if (!isOpen(v) || requiresInput(v)) return undefined;
  if (awaitingClaim(v)) {
    // Whoever typed someone else's number gets no outcome from their check until the code is entered.
    return { ...v, handoff: { ...v.handoff, pendingStatus: status } };
  }
  const attempts = [...(v.attempts ?? []), { checkStatus: status, endedAt: now, ...(check ? { check } : {}) }];
  // A word after which a person may try again (a mistyped detail, an unreadable document): its vendor's mapping says.
  if (isRetryable(vendorOf(v), status) && attempts.length < maxAttempts(v))
    return { ...v, attempts, state: { name: 'requires_input', since: now } };
  return { ...keyless(v), attempts, state: { name: 'final', at: now, checkStatus: status } };
}

/** finish at the deadline while waiting for a new attempt: final with the last attempt's status. */
export function lastAttemptFinal(v: Verification, now: number): Verification | undefined {
  const last = v.attempts?.at(-1);
  if (!requiresInput(v) || !last) return undefined;
  return { ...keyless(v), state: { name: 'final', at: now, checkStatus: last.checkStatus } };
}

// ---- handoff ----

/** open (handoff): the handoff URL's single-use token used up by "Continue". */
export function handoffOpened(v: Verification, now: number): Verification | undefined {
  const h = v.handoff;
  if (!isOpen(v) || h?.kind !== 'link' || h.opened || now >= v.linkExpiresAt) return undefined;
  return { ...v, handoff: { ...h, opened: true } };
}

/** The phone back on the return page with the return secret (single use): its browser's key. */
export function arrived(v: Verification, browserKey: string, outcome: 'success' | 'error'): Verification | undefined {
  const h = v.handoff;
  if (!h || h.browserKey) return undefined;
  return { ...v, handoff: { ...h, browserKey, returned: outcome } };
}

/** claim: a wrong code (tries only go up; the last one ends it, see `expired`). */
export function wrongCode(v: Verification): Verification | undefined {
  const h = v.handoff;
  if (!isOpen(v) || h?.code === undefined || h.claimed || (h.tries ?? 0) >= CLAIM_TRIES) return undefined;
  return { ...v, handoff: { ...h, tries: (h.tries ?? 0) + 1 } };
}

/** claim: the right code; a status the vendor gave meanwhile is credited now. */
export function claimed(v: Verification, now: number): Verification | undefined {
  const h = v.handoff;
  if (!isOpen(v) || h?.code === undefined || h.claimed || (h.tries ?? 0) >= CLAIM_TRIES) return undefined;
  const { pendingStatus, ...rest } = h;
  const next: Verification = { ...v, handoff: { ...rest, claimed: true } };
  return pendingStatus ? (attemptEnded(next, pendingStatus, now) ?? next) : next;
}

// ---- end ----

/** expire: no outcome (see `expiryDue` for when). */
export function expired(v: Verification, reason: ExpiredReason, now: number): Verification | undefined {
  if (!isOpen(v)) return undefined;
  return { ...keyless(v), state: { name: 'expired', at: now, reason } };
}

/** cancel: by the partner's server, while created, open or requires_input. */
export const canceled = (v: Verification, now: number): Verification | undefined => {
  if (!isOpen(v)) return undefined;
  return { ...keyless(v), state: { name: 'canceled', at: now } };
};

/**
 * redact: where a redaction deletes data, for good. Everything that can
 * identify the person or their client goes: the partner's reference, the
 * vendor's entity, checks, token and links, the handoff's secrets and the
 * browser key, the open-budget holds (they name the client's address), the
 * server's return URL and entity, the widget's form key, and the check ids of earlier attempts. The id, the
 * statuses and the times stay. An open verification is canceled with it. `vendorPending`: the vendor's subjects
 * whose erasure at the vendor failed (a fault) or was not asked (`vendor-subjects.ts`), the only ids kept, until a later redaction erases them there
 * (`at-vendor.ts`); none: the vendor erased all it has.
 */
export function redacted(v: Verification, now: number, vendorPending: readonly string[] = []): Verification {
  const {
    customerRef: _r,
    entityId: _e,
    returnParams: _c,
    earlierChecks: _k,
    link: _l,
    handoff: _h,
    holds: _o,
    server,
    attempts,
    vendorRedactPending: _p,
    ...rest
  } = keyless(v);
  const { returnUrl: _u, entityId: _se, ...serverRest } = server ?? {};
  const base: Verification = {
    ...rest,
    ...(server ? { server: serverRest } : {}),
    ...(attempts ? { attempts: attempts.map(({ checkStatus, endedAt }) => ({ checkStatus, endedAt })) } : {}),
    redactedAt: v.redactedAt ?? now,
    ...(vendorPending.length ? { vendorRedactPending: [...vendorPending] } : {}),
  };
  return canceled(base, now) ?? base;
}

/** The event that told an ended verification's end (undefined while it is open). */
export function endEvent(v: Verification): WebhookEventType | undefined {
  if (isOpen(v)) return undefined;
  return v.state.name === 'canceled' ? 'verification.canceled' : isFinal(v) ? 'verification.completed' : 'verification.expired';
}

/** The event a transition from `before` to `after` causes (undefined: none). */
export function eventOf(before: Verification, after: Verification): WebhookEventType | undefined {
  if (isOpen(before) && !isOpen(after)) return endEvent(after);
  if (!requiresInput(before) && requiresInput(after)) return 'verification.requires_input';
  return undefined;
}
