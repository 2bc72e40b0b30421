/**
 * Executes the commands of one verification (`commands.ts`) with everything
 * they touch passed in (storage, clock, vendor, outbox), so the same code
 * runs in the Durable Object (`verification-durable.ts`) and, in node tests,
 * over a map and a controlled clock (test/support/memory-verifications.ts).
 * Its one entry is `execute` (and `alarm`). Every write is a lifecycle
 * transition applied to the record as it is at that moment (`apply`), never
 * a copy taken before a vendor call.
 */
import { vendorMismatchError as vendorMismatch } from '../vendors/errors';
import { randomToken, safeEqual } from '../lib/random';
import type { Arrival, ClaimOutcome, Command, Results, ResultOf, ReturnHint, RenewalTurn } from './commands';
import type { OpsEvent } from '../ops/events';
import { errorName } from '../lib/errors';
import { log } from '../lib/log';
import {
  aboutEntity,
  checkStatusOf,
  expiredReason,
  stateAt,
  DEFAULT_LIFECYCLE,
  endedAt,
  endEvent,
  eventOf,
  handoffOpened,
  isOpen,
  RETENTION_MS,
  type LifecycleSettings,
  type VendorAnswer,
  fromStored,
} from './lifecycle';
import { hintPollDue, nextAlarmAt, pollDue, type PollCause, type PollSchedule } from './poll-schedule';
import {
  CLAIM_TRIES,
  vendorOf,
  type LinkStart,
  type Renewal,
  type Verification,
  type WebhookEvent,
  type WebhookState,
} from './verification';
import { webhookEvent } from './webhook-event';
import { decide, type Transition } from './decide';
import type { AskedAtVendor } from './vendor-subjects';
import {
  added,
  attemptFor,
  reported,
  undelivered,
  type AttemptReport,
  type OutboxEntry,
  type ReportResult,
  type RetryPolicy,
} from './webhook-outbox';
import { afterPause, pauseAskedFor, spreadOverdue, type VendorPace } from './vendor-pace';

export type { VendorAnswer } from './lifecycle';
export { RETENTION_MS } from './lifecycle';

export interface VerificationDeps {
  load(): Promise<Verification | undefined>;
  /**
   * Writes the record and the webhook events its change causes (the outbox
   * adds them) in one storage write: a crash can never keep the one without
   * the other.
   */
  save(v: Verification, events: readonly WebhookEvent[]): Promise<void>;
  /** Forgets the verification (after RETENTION_MS past its end). */
  remove(): Promise<void>;
  setAlarm(at: number): Promise<void>;
  now(): number;
  /** RESULT_POLL_SECONDS and RESULT_POLL_MAX_SECONDS, in ms. */
  schedule: PollSchedule;
  /** VERIFICATION_GRACE_SECONDS, LINK_MAX_SECONDS, VERIFICATION_MAX_SECONDS (defaults when absent). */
  lifecycle?: LifecycleSettings;
  /** Asks the vendor about the verification's entity; throws the vendor's fault. */
  askVendor(v: Verification): Promise<VendorAnswer>;
  /** Gives back the open-verification budgets it held (it ended). */
  release?(v: Verification): Promise<void>;
  /** Counts an operator's event for the verification's partner (never throws, never waits). */
  emit?(partnerId: string, event: OpsEvent): void;
  /** The webhook outbox as the host keeps it (the Durable Object: in memory and in storage); none: kept here, in memory. */
  outbox?: OutboxHost;
  /** Where a partner's pause after a vendor 429 is kept (vendor-pace.ts); none: no pause is shared. */
  pace?: VendorPace;
  /** Where an overdue poll falls within its spread ([0, 1)); Math.random by default. */
  random?: () => number;
}

/** The host's outbox: its entries now, and where a change to them is written. */
export interface OutboxHost {
  entries(): OutboxEntry[];
  /** Writes `entries`; `changed` names the sequences whose delivery the console has not seen. */
  store(entries: OutboxEntry[], ...changed: number[]): void;
  policy: RetryPolicy;
}

/**
 * How long a renewal's lease lasts at most. A caller always ends its turn
 * (its route's `finally`); this is for one that never can (its isolate went
 * away), and it is longer than a renewal's two vendor calls at the longest
 * vendor timeout (60 s each).
 */
export const RENEWAL_TURN_MS = 125_000;

/** A transition that was applied: the record before it and after it, and the events written with it. */
interface Applied {
  before: Verification;
  after: Verification;
  events: WebhookEvent[];
}

export class VerificationLogic {
  /** The poll under way, so concurrent callers share it (one vendor call). */
  private inflight: Promise<void> | undefined;
  /** The write under way: transitions never interleave their read and their write. */
  private writing: Promise<unknown> = Promise.resolve();
  /** Wakes the callers waiting for a renewal lease (the lease itself is on the record). */
  private leaseEnded: (() => void)[] = [];

  /** The host's outbox, or one in memory for a host that keeps none. */
  private readonly outbox: OutboxHost;
  /** The end of the partner's pause that held the last poll up (or that its 429 asked for), for the next alarm. */
  private heldUntil: number | undefined;
  private readonly random: () => number;

  constructor(private readonly d: VerificationDeps) {
    this.random = d.random ?? Math.random;
    let entries: OutboxEntry[] = [];
    this.outbox = d.outbox ?? {
      entries: () => entries,
      store: (next) => void (entries = next),
      policy: { schedule: [60], maxAttempts: 1 },
    };
  }

  /** Applies one command to the verification as it is now: the only way in, with `alarm`. */
  execute<C extends Command>(c: C): Promise<ResultOf<C>> {
    return this.run(c) as Promise<ResultOf<C>>;
  }

  private run(c: Command): Promise<Results[Command['type']]> {
    switch (c.type) {
      case 'create':
        return this.create(c.verification).then(() => undefined);
      case 'read':
        return this.d.load();
      case 'observe':
        return this.observe(c.hint, c.arrived);
      case 'start':
        return this.startLink(c.link);
      case 'renewal.begin':
        return this.beginRenewal();
      case 'renew':
        return this.renew(c.renewal, c.fence);
      case 'renewal.end':
        return this.endRenewal(c.fence).then(() => undefined);
      case 'handoff.open':
        return this.openHandoff(c.token, c.consume);
      case 'arrive':
        return this.arrive(c.secret, c.outcome, c.hint);
      case 'claim':
        return this.claim(c.browserKey, c.code);
      case 'cancel':
        return this.cancel();
      case 'redact':
        return this.redact(c.atVendor);
      case 'expire':
        return this.expireNow();
      case 'redeliver':
        return this.redeliver();
      case 'undelivered':
        return Promise.resolve(undelivered(this.outbox.entries()));
      case 'outbox.event':
        return Promise.resolve(attemptFor(this.outbox.entries(), c.sequence, c.attempt)?.event);
      case 'deliver':
        return this.delivered(c.sequence, c.attempt, c.report);
      case 'adopt':
        return this.adopt(c.event).then(() => undefined);
    }
  }

  private get settings(): LifecycleSettings {
    return this.d.lifecycle ?? DEFAULT_LIFECYCLE;
  }

  private emit(v: Verification, event: OpsEvent): void {
    try {
      this.d.emit?.(v.partnerId, event);
    } catch {
      // Counting never fails a verification.
    }
  }

  /**
   * Applies transition `t` to the record as it is now (`decide`) and saves
   * the result (undefined: nothing written, the state did not allow it). One at a time:
   * the Durable Object's input gate keeps storage reads and writes in order,
   * and this keeps them in order in node tests' in-memory store too. The
   * webhook events the change causes (`decide` names them) are built from
   * the record it saves and written with it. Then the effects of what
   * changed: the operator's events, the open budget given back, the alarm.
   */
  private apply(t: Transition): Promise<Applied | undefined> {
    const run = this.writing.then(async () => {
      const before = await this.d.load();
      if (!before) return undefined;
      const decision = decide(before, t, this.d.now(), this.settings);
      if ('refused' in decision) return undefined;
      const { next: after, events: types } = decision;
      const last = types.at(-1);
      const saved: Verification = last ? { ...after, lastEvent: last, webhook: { ...after.webhook, state: 'queued' } } : after;
      const events = types.map((type) => webhookEvent(saved, type));
      await this.d.save(saved, events);
      return { before, after: saved, events };
    });
    this.writing = run.catch(() => undefined);
    return run.then(async (applied) => {
      if (applied) await this.effects(applied);
      return applied;
    });
  }

  private async effects({ before, after }: Applied): Promise<void> {
    const type = eventOf(before, after);
    if (!type) return;
    const now = this.d.now();
    if (type === 'verification.canceled') this.emit(after, { type: 'verification.canceled' });
    if (type === 'verification.expired') this.emit(after, { type: 'verification.expired', reason: expiredReason(after)! });
    if (type === 'verification.completed') {
      this.emit(after, {
        type: 'verification.final',
        checkStatus: checkStatusOf(after),
        secondsSinceLink: (stateAt(after, 'final')! - (after.linkCreatedAt ?? after.createdAt)) / 1000,
        vendor: vendorOf(after),
      });
    }
    if (type === 'verification.requires_input') {
      await this.reschedule();
      return;
    }
    // Ended: the holds of the record before (a redaction drops them from the record).
    await this.d.release?.(before).catch(() => undefined); // the hold lapses by itself otherwise
    await this.d.setAlarm(Math.max(endedAt(after)!, now) + RETENTION_MS);
  }

  private async create(given: Verification): Promise<void> {
    // A record in the shape before the explicit state (one kept by a caller, a test's fixture) is stored in today's.
    const v = fromStored(given);
    // The record and its first alarm together: one storage commit, not two in series.
    await Promise.all([this.d.save(v, []), this.d.setAlarm(nextAlarmAt(v, this.d.now(), this.d.schedule, this.settings))]);
  }

  /**
   * The first link of a verification the partner's server started: its page
   * used the client secret. Undefined when it is no longer `created` (a link
   * was made meanwhile, or it was canceled or expired).
   */
  private async startLink(s: LinkStart): Promise<Verification | undefined> {
    const r = await this.apply({ type: 'start', link: s });
    if (r) await this.reschedule();
    return r?.after;
  }

  /** Canceled by the partner's server (created, open or requires_input): polling stops, `verification.canceled` goes out. */
  private async cancel(): Promise<Verification | undefined> {
    const r = await this.apply({ type: 'cancel' });
    return r?.after ?? this.d.load();
  }

  /**
   * Forgets what identifies the person for good (`lifecycle.ts` `redacted`);
   * an open one is canceled first. `verification.redacted` goes out (its own
   * `webhook-id`), and is the last event a redelivery sends.
   */
  private async redact(atVendor?: AskedAtVendor): Promise<Verification | undefined> {
    // An open one's verification.canceled and the redaction's own event, written with the redacted record.
    await this.apply({ type: 'redact', ...(atVendor ? { atVendor } : {}) });
    return this.d.load();
  }

  /**
   * Ends an open verification as expired now, whatever its deadline: the
   * local stack's sandbox command (`npm run sandbox -- expire`) alone calls it.
   */
  private async expireNow(): Promise<Verification | undefined> {
    await this.apply({ type: 'expire', reason: 'not_finished' });
    return this.d.load();
  }

  /** The last event again (same `webhook-id`, a fresh attempt); undefined while it has caused none. */
  private async redeliver(): Promise<WebhookEvent | undefined> {
    const v = await this.d.load();
    const type = v && (v.lastEvent ?? endEvent(v));
    if (!type) return undefined;
    // The outbox keeps the event's body from when it happened: this is a fresh delivery of it.
    const r = await this.apply({ type: 'redeliver' });
    return r?.events.at(-1);
  }

  /**
   * The record, after asking the vendor if that is due (a browser waits on
   * it): at once when a person is back on the return page (`arrived`), or
   * when the browser brings back return parameters it had not brought
   * before, within HINT_POLLS for the verification (a hint only makes the
   * worker ask sooner: the vendor is asked about the verification's own
   * entity); otherwise at most once per poll interval however many browsers
   * ask. A fault of a poll made for this call is thrown (the browser sees
   * 502/504).
   */
  private async observe(hint: ReturnHint = {}, arrivedBack = false): Promise<Verification | undefined> {
    const brought = await this.apply({ type: 'hint', ...(hint.params ? { params: hint.params } : {}) });
    let firstReturn = false;
    if (hint.returned !== undefined) {
      const r = await this.apply({ type: 'return' });
      if (r) {
        firstReturn = true;
        this.emit(r.after, { type: 'flow.returned', outcome: hint.returned });
      }
    }
    const v = await this.d.load();
    if (!v) return undefined;
    // A person back on the return page is a return (its secret is single use); a
    // browser's new return parameters are one only within HINT_POLLS, then it is
    // a browser asking like any other.
    const cause: PollCause = arrivedBack || firstReturn || (brought && hintPollDue(v)) ? 'returned' : 'browser';
    if (this.inflight) await this.inflight.catch(() => undefined);
    else if (pollDue(v, this.d.now(), this.d.schedule, cause)) await this.poll(cause);
    return this.d.load();
  }

  /** One poll at a time: a caller while one is under way shares it. */
  private poll(cause: PollCause): Promise<void> {
    if (this.inflight) return this.inflight;
    const run = this.pollOnce(cause);
    this.inflight = run;
    return run.finally(() => {
      if (this.inflight === run) this.inflight = undefined;
    });
  }

  private async pollOnce(cause: PollCause): Promise<void> {
    // Nobody asks the vendor while it has paused this partner's calls (vendor-pace.ts); the alarm waits past the pause.
    const partnerId = (await this.d.load())?.partnerId;
    const paused = partnerId === undefined ? undefined : await this.pausedUntil(partnerId);
    if (paused !== undefined) {
      this.heldUntil = paused;
      return;
    }
    // Refused while nothing could be credited (a handed-off link whose outcome the vendor already gave only waits for its code).
    const started = await this.apply({ type: 'poll.start', cause });
    if (!started) return;
    const asked = started.after;
    let answer: VendorAnswer;
    try {
      answer = await this.d.askVendor(asked);
    } catch (err) {
      // A failing vendor is asked less and less often, whoever asks (the alarm doubles its wait too).
      await this.apply({ type: 'poll.fail' });
      // Its 429 pauses every verification of the partner, until its Retry-After at least.
      const pause = pauseAskedFor(err, this.d.now());
      if (pause !== undefined) this.heldUntil = (await this.d.pace?.pause(asked.partnerId, pause).catch(() => pause)) ?? pause;
      if (cause !== 'alarm') await this.reschedule();
      throw err;
    }
    if (!aboutEntity(answer, asked.entityId!)) {
      // Never credited: a result without an entity, or about someone else's.
      log.error('vendor_mismatch', { verificationId: asked.id });
      await this.apply({ type: 'poll.fail' });
      if (cause !== 'alarm') await this.reschedule();
      throw vendorMismatch();
    }
    // Applied to the record as it is after the answer: whatever happened meanwhile stands.
    await this.apply({ type: 'answer', answer, entityId: asked.entityId! });
    // Someone is waiting (or just came back): the alarm starts again from the base interval.
    if (cause !== 'alarm') await this.reschedule();
  }

  /** The partner's pause, while it lasts (a look-up that fails holds no poll up). */
  private async pausedUntil(partnerId: string): Promise<number | undefined> {
    const until = await this.d.pace?.pausedUntil(partnerId).catch(() => undefined);
    return until !== undefined && until > this.d.now() ? until : undefined;
  }

  /** Moves the alarm to the next poll on the schedule (an open verification), and past the partner's pause if one held a poll up. */
  private async reschedule(): Promise<void> {
    const v = await this.d.load();
    const held = this.heldUntil;
    this.heldUntil = undefined;
    if (!v || !isOpen(v)) return;
    const next = nextAlarmAt(v, this.d.now(), this.d.schedule, this.settings);
    await this.d.setAlarm(held === undefined ? next : Math.max(next, afterPause(held, this.d.schedule, this.random)));
  }

  /**
   * The alarm: poll on the schedule while open (backing off while no one
   * waits), and end it at its deadline (`expiryDue`). `plannedAt` is when the
   * host set it for: an overdue poll is spread (vendor-pace.ts).
   */
  async alarm(plannedAt?: number): Promise<void> {
    const v = await this.d.load();
    if (!v) return;
    const now = this.d.now();
    if (!isOpen(v)) {
      if (now >= endedAt(v)! + RETENTION_MS) await this.d.remove();
      else await this.d.setAlarm(endedAt(v)! + RETENTION_MS);
      return;
    }
    if (await this.endIfDue()) return;
    if (pollDue(v, now, this.d.schedule, 'alarm')) {
      const spread = spreadOverdue(plannedAt, now, this.d.schedule, this.random);
      if (spread !== undefined) {
        await this.d.setAlarm(spread);
        return;
      }
      try {
        await this.poll('alarm');
      } catch (err) {
        // A failed poll is tried again at the next alarm; the error's name only.
        log.error('poll_failed', { verificationId: v.id, error: errorName(err) });
      }
      // The vendor's answer at the deadline decides it.
      if (await this.endIfDue()) return;
    }
    await this.reschedule();
  }

  /** Ends it when `expiryDue` says so (true: it has ended). */
  private async endIfDue(): Promise<boolean> {
    const r = await this.apply({ type: 'deadline' });
    return r !== undefined;
  }

  /**
   * The code shown on the first device, entered on the return page by the
   * browser that arrived there with the return secret (its `browserKey`).
   * The right code credits the outcome (at once if the vendor already gave
   * it); CLAIM_TRIES wrong ones end the verification as not claimed.
   */
  private async claim(browserKey: string, code: string): Promise<ClaimOutcome> {
    const v = await this.d.load();
    const h = v?.handoff;
    if (!v || h?.code === undefined || !h.browserKey || !safeEqual(browserKey, h.browserKey)) return { kind: 'gone' };
    const returnedAs = h.returned ? { returned: h.returned } : {};
    if (h.claimed) return { kind: 'claimed', ...returnedAs };
    if (!isOpen(v) || (h.tries ?? 0) >= CLAIM_TRIES) return { kind: 'ended' };
    if (!safeEqual(code, h.code)) {
      // The last wrong code ends it at once: verification.expired (not_claimed), /api/result final.
      const r = await this.apply({ type: 'code.wrong' });
      const tries = r?.after.handoff?.tries ?? CLAIM_TRIES;
      return tries < CLAIM_TRIES ? { kind: 'wrong', triesLeft: CLAIM_TRIES - tries } : { kind: 'ended' };
    }
    const r = await this.apply({ type: 'code.right' });
    if (!r) {
      const now = await this.d.load();
      return now?.handoff?.claimed ? { kind: 'claimed', ...returnedAs } : { kind: 'ended' };
    }
    // Back with the code and nothing credited yet: asked at once (the alarm tries again if the vendor is down).
    if (isOpen(r.after)) await this.observe({}, true).catch(() => undefined);
    return { kind: 'claimed', ...returnedAs };
  }

  /**
   * A caller's turn to make a new link, once the turn before it has ended:
   * the route asks the vendor which check the link it replaces is, makes the
   * new link and stores it (`renew`, with the turn's fence) within its turn.
   * Two at once ("Send again" in two tabs) would both name the same replaced
   * check, and the first one's link would be neither the newest nor an
   * earlier check: its outcome never credited. The lease is on the record
   * (`leaseTaken`), so an object evicted or restarted meanwhile still knows
   * it; one that lapsed (its holder went away) is taken over, and the old
   * holder's `renew` is then refused by the fence. The record returned is as
   * it is when the turn comes (after the earlier renewal).
   */
  private async beginRenewal(): Promise<RenewalTurn> {
    for (;;) {
      const now = this.d.now();
      const taken = await this.apply({ type: 'lease.take', ms: RENEWAL_TURN_MS });
      if (taken) return { fence: taken.after.renewalLease!.fence, v: taken.after, at: this.d.now() };
      const v = await this.d.load();
      if (!v) return { fence: 0, v: undefined };
      await this.leaseWait((v.renewalLease?.until ?? now) - now);
    }
  }

  /** Until a lease here ends, or the held one lapses (whichever is first). */
  private leaseWait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      this.leaseEnded.push(wake);
    });
  }

  private wakeLeaseWaiters(): void {
    const waiting = this.leaseEnded;
    this.leaseEnded = [];
    for (const wake of waiting) wake();
  }

  /** Ends a renewal turn (once; a fence that is not the lease's is nothing to end). */
  private async endRenewal(fence: number): Promise<void> {
    await this.apply({ type: 'lease.end', fence });
    this.wakeLeaseWaiters();
  }

  /**
   * A new link for the same verification: a renewal (its link expired) or,
   * in `requires_input`, the person's next attempt (`lifecycle.ts`
   * `renewed`), written only by the holder of the lease (`fence`), which it
   * ends. Undefined when it has ended meanwhile, has had its MAX_RENEWALS,
   * or another turn has taken the lease.
   */
  private async renew(r: Renewal, fence: number): Promise<Verification | undefined> {
    const applied = await this.apply({ type: 'renew', renewal: r, fence });
    if (applied) {
      this.wakeLeaseWaiters();
      await this.reschedule();
    }
    return applied?.after;
  }

  /**
   * The handoff URL: where to send the phone, while it is valid and unused.
   * Only `consume` (the "Continue" POST of the page a GET or HEAD shows) uses
   * it up: link previews and mail scanners open links too.
   */
  private async openHandoff(token: string, consume = true): Promise<string | undefined> {
    const v = await this.d.load();
    const h = v?.handoff;
    if (!v || h?.kind !== 'link' || !safeEqual(token, h.openToken) || !handoffOpened(v, this.d.now())) return undefined;
    if (!consume) return h.hostedUrl;
    // Used once: the token must still be this one when the write happens.
    const r = await this.apply({ type: 'handoff.open', token });
    if (!r) return undefined;
    this.emit(r.after, { type: 'handoff.opened' });
    return h.hostedUrl;
  }

  /**
   * The phone came back from the hosted flow to the worker's return page
   * with the return secret (single use: the first browser to arrive with it
   * gets a key, kept as its cookie). A return makes the vendor be asked at
   * once.
   */
  private async arrive(secret: string, outcome: 'success' | 'error', hint: ReturnHint): Promise<Arrival | undefined> {
    const v = await this.d.load();
    const h = v?.handoff;
    if (!v || !h || !safeEqual(secret, h.returnSecret)) return undefined;
    const browserKey = randomToken();
    const r = await this.apply({ type: 'arrive', secret, browserKey, outcome });
    if (!r) return undefined; // single use: someone already arrived with it
    const first = await this.apply({ type: 'return' });
    if (first) this.emit(first.after, { type: 'flow.returned', outcome });
    await this.observe(hint, true).catch(() => undefined); // the alarm tries again if the vendor is down
    const after = r.after;
    return { browserKey, needsCode: after.handoff!.code !== undefined && !after.handoff!.claimed && isOpen(after) };
  }

  /** An event queued before the outbox existed: kept and delivered by it from now on. */
  private async adopt(event: WebhookEvent): Promise<void> {
    if (!(await this.d.load())) return;
    const entries = added(this.outbox.entries(), event, this.d.now());
    const entry = entries.find((e) => e.event.id === event.id);
    this.outbox.store(entries, ...(entry ? [entry.sequence] : []));
  }

  /** What the consumer's attempt came to: recorded in the outbox (its retry is the host's alarm) and, for the last event, on the record. */
  private async delivered(sequence: number, attempt: number, report: AttemptReport): Promise<ReportResult | undefined> {
    const r = reported(this.outbox.entries(), sequence, attempt, report, this.d.now(), this.outbox.policy);
    if (!r) return undefined;
    this.outbox.store(r.entries, sequence);
    const last = r.entries.reduce((a, b) => (b.sequence > a.sequence ? b : a));
    if (last.sequence === sequence) await this.webhookOutcome(r.entry.state, r.entry.attempts, r.entry.lastStatus);
    return r.result;
  }

  /** What the delivery queue learnt about the webhook. */
  private async webhookOutcome(state: WebhookState, attempts: number, status?: number): Promise<void> {
    await this.apply({ type: 'webhook', state, attempts, ...(status !== undefined ? { status } : {}) });
  }
}
