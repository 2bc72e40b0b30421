/**
 * The one decision function: what a transition does to a verification as it
 * is now, and the webhook events the change causes; or why it is refused.
 * Pure (no I/O, no clock but `now`): the executor (verification-logic.ts)
 * applies it to the record as it is at the moment of the write, and saves
 * `next` with `events` in one write. The rules themselves are
 * `lifecycle.ts`'s (and `poll-schedule.ts`'s for polls); this names every
 * transition and says which rule decides it.
 */
import {
  answered,
  arrived,
  awaitingClaim,
  canceled,
  claimed,
  endEvent,
  eventOf,
  expired,
  expiryDue,
  handoffOpened,
  hinted,
  isOpen,
  lastAttemptFinal,
  leaseEnded,
  leaseTaken,
  linkStarted,
  pollFailed,
  redacted,
  renewed,
  returned,
  wrongCode,
  type ExpiredReason,
  type LifecycleSettings,
  type VendorAnswer,
} from './lifecycle';
import { pollStarted, type PollCause } from './poll-schedule';
import { stillAtVendor, type AskedAtVendor } from './vendor-subjects';
import { CLAIM_TRIES, type LinkStart, type Renewal, type Verification, type WebhookEventType, type WebhookState } from './verification';

/** Everything that may change a verification's record. */
export type Transition =
  /** open: a server-started verification's first link. */
  | { type: 'start'; link: LinkStart }
  /** The renewal lease taken for `ms`. */
  | { type: 'lease.take'; ms: number }
  /** The renewal lease `fence` ended. */
  | { type: 'lease.end'; fence: number }
  /** renew / attempt: a new link, by the holder of lease `fence` (which it ends). */
  | { type: 'renew'; renewal: Renewal; fence: number }
  /** A browser brought the hosted flow's return parameters (they only make the worker ask sooner). */
  | { type: 'hint'; params?: Record<string, string> }
  /** The first return from the hosted flow. */
  | { type: 'return' }
  /** A poll of the vendor starts (refused while the answer could change nothing). */
  | { type: 'poll.start'; cause: PollCause }
  /** A poll the vendor could not answer (a fault, or an answer not about this entity). */
  | { type: 'poll.fail' }
  /** The vendor's answer about `entityId`. */
  | { type: 'answer'; answer: VendorAnswer; entityId: string }
  /** A handoff URL's single-use token used up. */
  | { type: 'handoff.open'; token: string }
  /** The phone back on the return page with the return secret. */
  | { type: 'arrive'; secret: string; browserKey: string; outcome: 'success' | 'error' }
  /** A wrong code (the last one ends it, `not_claimed`). */
  | { type: 'code.wrong' }
  /** The right code. */
  | { type: 'code.right' }
  /** Ends an open one as expired now. */
  | { type: 'expire'; reason: ExpiredReason }
  /** The deadline's decision (`expiryDue`): expired, or final with the last attempt's status. */
  | { type: 'deadline' }
  | { type: 'cancel' }
  | { type: 'redact'; atVendor?: AskedAtVendor }
  /** The last event again. */
  | { type: 'redeliver' }
  /** What the delivery queue learnt about the last event. */
  | { type: 'webhook'; state: WebhookState; attempts: number; status?: number };

export type Decision = { next: Verification; events: WebhookEventType[] } | { refused: string };

/** The record after `t`, and the events it causes; or why the state does not allow it. */
export function decide(v: Verification, t: Transition, now: number, s: LifecycleSettings): Decision {
  const next = transition(v, t, now, s);
  if (typeof next === 'string') return { refused: next };
  const events = [eventOf(v, next), also(v, t)].filter((x): x is WebhookEventType => x !== undefined);
  return { next, events };
}

/** An event a transition causes beyond its change of state. */
function also(v: Verification, t: Transition): WebhookEventType | undefined {
  if (t.type === 'redact') return v.lastEvent === 'verification.redacted' ? undefined : 'verification.redacted';
  if (t.type === 'redeliver') return v.lastEvent ?? endEvent(v);
  return undefined;
}

/** Each transition's rule; a string says why it is refused. */
function transition(v: Verification, t: Transition, now: number, s: LifecycleSettings): Verification | string {
  switch (t.type) {
    case 'start':
      return linkStarted(v, t.link, now, s) ?? 'not created';
    case 'lease.take':
      return leaseTaken(v, now, t.ms) ?? 'lease held';
    case 'lease.end':
      return leaseEnded(v, t.fence) ?? 'not the lease';
    case 'renew': {
      // Only the lease's holder, and once: the write that stores the link ends the lease.
      if (v.renewalLease?.fence !== t.fence || v.renewalLease.until === 0) return 'not the lease';
      const next = renewed(v, t.renewal, now, s);
      return next ? leaseEnded(next, t.fence)! : 'not renewable';
    }
    case 'hint':
      return hinted(v, t.params) ?? 'nothing new';
    case 'return':
      return returned(v, now) ?? 'returned already';
    case 'poll.start':
      if (!isOpen(v) || !v.entityId) return 'nothing to ask';
      // A handed-off link whose outcome the vendor already gave only waits for its code.
      if (awaitingClaim(v) && v.handoff.pendingStatus) return 'waiting for the code';
      return pollStarted(v, now, t.cause);
    case 'poll.fail':
      return pollFailed(v) ?? 'ended';
    case 'answer':
      return answered(v, t.answer, t.entityId, now) ?? 'not creditable';
    case 'handoff.open':
      if (v.handoff?.kind !== 'link' || v.handoff.openToken !== t.token) return 'not this token';
      return handoffOpened(v, now) ?? 'used or expired';
    case 'arrive':
      if (v.handoff?.returnSecret !== t.secret) return 'not this secret';
      return arrived(v, t.browserKey, t.outcome) ?? 'arrived already';
    case 'code.wrong': {
      const w = wrongCode(v);
      if (!w) return 'no code to try';
      return (w.handoff!.tries ?? 0) >= CLAIM_TRIES ? expired(w, 'not_claimed', now)! : w;
    }
    case 'code.right':
      return claimed(v, now) ?? 'no code to claim';
    case 'expire':
      return expired(v, t.reason, now) ?? 'ended';
    case 'deadline': {
      const due = expiryDue(v, now, s);
      if (due?.kind === 'expire') return expired(v, due.reason, now)!;
      if (due?.kind === 'final') return lastAttemptFinal(v, now) ?? 'no attempt';
      return 'not due';
    }
    case 'cancel':
      return canceled(v, now) ?? 'ended';
    case 'redact':
      return redacted(v, now, t.atVendor ? stillAtVendor(v, t.atVendor) : []);
    case 'redeliver':
      return (v.lastEvent ?? endEvent(v)) ? { ...v } : 'no event';
    case 'webhook':
      return {
        ...v,
        webhook: { state: t.state, attempts: t.attempts, ...(t.status !== undefined ? { lastStatus: t.status } : {}), at: now },
      };
  }
}
