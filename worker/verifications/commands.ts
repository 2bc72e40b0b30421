/**
 * Every operation on one verification, as data: the routes, the queue
 * consumer and the sandbox send a `Command` to the verification's object
 * (the `verifications` port's one method, `execute`), which applies it to
 * the record as it is at that moment (`verification-logic.ts`). Adding an
 * operation is one member here, its result in `Results`, and its case in the
 * executor (and, when it changes the record, in `lifecycle.ts` `decide`).
 */
import type { LinkStart, Renewal, Verification, WebhookEvent } from './verification';
import type { AskedAtVendor } from './vendor-subjects';
import type { AttemptReport, ReportResult, UndeliveredEvent } from './webhook-outbox';

/** What a browser may add when it comes back from the hosted flow. */
export interface ReturnHint {
  /** What the hosted flow appended to the return URL (opaque, bounded: `vendors/return-params.ts`). */
  params?: Record<string, string>;
  /** The hosted flow sent the person back to the partner's page (`kyc_return`), as the widget read it. */
  returned?: 'success' | 'error';
}

/** A phone back on the return page: its key, and whether it must enter the first device's code. */
export interface Arrival {
  browserKey: string;
  needsCode: boolean;
}

/** What entering a code on the return page came to. */
export type ClaimOutcome =
  { kind: 'claimed'; returned?: 'success' | 'error' } | { kind: 'wrong'; triesLeft: number } | { kind: 'ended' } | { kind: 'gone' };

/**
 * A caller's turn to make a new link (`renewal.begin`): the lease's fence
 * (persisted on the record; the `renew` that stores the new link presents
 * it, and is refused once another turn has taken the lease), and the record
 * as it is once the turn came. `fence` 0: no record.
 */
export interface RenewalTurn {
  fence: number;
  v: Verification | undefined;
  /** The object's clock when the turn came (whether the link is still good is judged by it, as its expiry was set). */
  at?: number;
}

export type Command =
  /**
   * A new verification (its first alarm set with it). `listed: 'after-answer'`:
   * its row in the `/v1` list is written just after the answer, not before it
   * (the browser's link route, whose caller never lists; docs/decisions.md).
   */
  | { type: 'create'; verification: Verification; listed?: 'after-answer' }
  /** The record as it is, without asking the vendor. */
  | { type: 'read' }
  /** The record, after asking the vendor if that is due (a browser waits on it); `arrived`: a person is back, ask now. */
  | { type: 'observe'; hint?: ReturnHint; arrived?: boolean }
  /** A server-started verification's first link; undefined when it is no longer `created`. */
  | { type: 'start'; link: LinkStart }
  /** The caller's turn to make a new link, after any renewal under way. */
  | { type: 'renewal.begin' }
  /** A new link for the same verification (renewal or next attempt), with the turn's fence. */
  | { type: 'renew'; renewal: Renewal; fence: number }
  /** Ends a renewal turn that stored no link (a failed vendor call). */
  | { type: 'renewal.end'; fence: number }
  /** Handoff: the hosted flow's URL for a valid, unused handoff token (used up when `consume`). */
  | { type: 'handoff.open'; token: string; consume: boolean }
  /** Handoff: the phone's return with the return secret (single use). */
  | { type: 'arrive'; secret: string; outcome: 'success' | 'error'; hint: ReturnHint }
  /** Handoff: the first device's code, entered by the browser that arrived (its key). */
  | { type: 'claim'; browserKey: string; code: string }
  /** `/v1` cancel. */
  | { type: 'cancel' }
  /** `/v1` redact; `atVendor`: what the vendor was asked to erase, and what it has not erased yet (`vendor-subjects.ts`). */
  | { type: 'redact'; atVendor?: AskedAtVendor }
  /** The sandbox command (local stack only): an open verification ends as expired now. */
  | { type: 'expire' }
  /** `/v1` redeliver: the last event queued again. */
  | { type: 'redeliver' }
  /** The events not delivered yet (queued, failed, dead). */
  | { type: 'undelivered' }
  /** The queue consumer: the event to attempt, or undefined when that attempt is no longer owed. */
  | { type: 'outbox.event'; sequence: number; attempt: number }
  /** The queue consumer: what an attempt came to. */
  | { type: 'deliver'; sequence: number; attempt: number; report: AttemptReport }
  /** An event queued before the outbox existed, handed to it. */
  | { type: 'adopt'; event: WebhookEvent };

/** What each command answers. */
export interface Results {
  create: undefined;
  read: Verification | undefined;
  observe: Verification | undefined;
  start: Verification | undefined;
  'renewal.begin': RenewalTurn;
  /** Undefined when it has ended, had its renewals, or the fence is no longer the lease's. */
  renew: Verification | undefined;
  'renewal.end': undefined;
  'handoff.open': string | undefined;
  arrive: Arrival | undefined;
  claim: ClaimOutcome;
  /** The record after (unchanged when it had ended already). */
  cancel: Verification | undefined;
  redact: Verification | undefined;
  expire: Verification | undefined;
  /** Undefined while it has caused no event. */
  redeliver: WebhookEvent | undefined;
  undelivered: UndeliveredEvent[];
  'outbox.event': WebhookEvent | undefined;
  /** Undefined when it was already reported. */
  deliver: ReportResult | undefined;
  adopt: undefined;
}

export type ResultOf<C extends Command> = Results[C['type']];
