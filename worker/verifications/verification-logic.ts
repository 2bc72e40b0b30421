/**
 * What happens to one verification over time, with everything it touches
 * passed in (storage, clock, vendor, queue), so the same code runs in the
 * Durable Object and, in node tests, against a map and a controlled clock.
 */
import { vendorMismatch } from '../vendor-api/errors';
import { randomToken, safeEqual } from '../lib/random';
import type { OpsEvent } from '../ops/events';
import { errorName } from '../lib/errors';
import {
  awaitingClaim,
  CHECKING,
  CLAIM_TRIES,
  isOpen,
  lifecycle,
  MAX_RENEWALS,
  hintPollDue,
  nextAlarmAt,
  pollDue,
  pollStarted,
  webhookEvent,
  type PollCause,
  type PollSchedule,
  type LinkStart,
  type Renewal,
  type Verification,
  type WebhookEvent,
  type WebhookState,
} from './verification';

export interface VendorAnswer {
  checkStatus: string;
  entityId?: string;
}

export interface VerificationDeps {
  load(): Promise<Verification | undefined>;
  save(v: Verification): Promise<void>;
  /** Forgets the verification (after RETENTION_MS past its end). */
  remove(): Promise<void>;
  setAlarm(at: number): Promise<void>;
  now(): number;
  /** RESULT_POLL_SECONDS and RESULT_POLL_MAX_SECONDS, in ms. */
  schedule: PollSchedule;
  /** Asks the vendor about the verification's check; throws the vendor's fault. */
  askVendor(v: Verification): Promise<VendorAnswer>;
  /** Hands a webhook event to the delivery queue (at least once). */
  enqueue(event: WebhookEvent): Promise<void>;
  /** Gives back the open-verification budgets it held (it ended). */
  release?(v: Verification): Promise<void>;
  /** Counts an operator's event for the verification's partner (never throws, never waits). */
  emit?(partnerId: string, event: OpsEvent): void;
}

/** What a browser may add when it comes back from the hosted flow. */
export interface ReturnHint {
  checkId?: string;
  token?: string;
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

/** How long an ended verification is kept (its token can be asked again, webhooks retry for days). */
export const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

const endedAt = (v: Verification) => v.canceledAt ?? v.finalAt ?? v.expiredAt;

export class VerificationLogic {
  /** The poll under way, so concurrent callers share it (one vendor call). */
  private inflight: Promise<void> | undefined;

  constructor(private readonly d: VerificationDeps) {}

  private emit(v: Verification, event: OpsEvent): void {
    try {
      this.d.emit?.(v.partnerId, event);
    } catch {
      // Counting never fails a verification.
    }
  }

  /** The first return from the hosted flow (this device's, or the phone's on the return page) is counted once. */
  private returnedOnce(v: Verification, outcome: 'success' | 'error'): Verification {
    if (v.flowReturnedAt !== undefined) return v;
    this.emit(v, { type: 'flow.returned', outcome });
    return { ...v, flowReturnedAt: this.d.now() };
  }

  async create(v: Verification): Promise<void> {
    // The record and its first alarm together: one storage commit, not two in series.
    await Promise.all([this.d.save(v), this.d.setAlarm(nextAlarmAt(v, this.d.now(), this.d.schedule))]);
  }

  /**
   * The first link of a verification the partner's server started: its page
   * used the client secret. Undefined when it is no longer `created` (a link
   * was made meanwhile, or it was canceled or expired).
   */
  async startLink(s: LinkStart): Promise<Verification | undefined> {
    const v = await this.d.load();
    if (!v || lifecycle(v) !== 'created') return undefined;
    const now = this.d.now();
    const next: Verification = {
      ...v,
      entityId: s.entityId,
      partnerOrigin: s.partnerOrigin,
      linkCreatedAt: now,
      linkExpiresAt: s.linkExpiresAt,
      deadline: Math.max(v.deadline, s.deadline),
      ...(s.handoff ? { handoff: s.handoff } : {}),
      ...(s.link ? { link: s.link } : {}),
      ...(s.holds ? { holds: s.holds } : {}),
    };
    await this.d.save(next);
    await this.d.setAlarm(nextAlarmAt(next, now, this.d.schedule));
    return next;
  }

  /** Canceled by the partner's server (created or open): polling stops, `verification.canceled` goes out. */
  async cancel(): Promise<Verification | undefined> {
    const v = await this.d.load();
    if (!v || !isOpen(v)) return v;
    return this.end({ ...v, canceledAt: this.d.now() });
  }

  /**
   * Forgets `customerRef` and `entityId` (and the vendor's check and link
   * identifiers) for good; the id, status and times stay. An open one is
   * canceled first, its event already without them; events still queued
   * are sent without them too (the consumer reads `redactedAt`).
   */
  async redact(): Promise<Verification | undefined> {
    const v = await this.d.load();
    if (!v) return undefined;
    const now = this.d.now();
    const { customerRef: _r, entityId: _e, checkId: _c, token: _t, link: _l, handoff: _h, ...rest } = v;
    const redacted: Verification = { ...rest, redactedAt: v.redactedAt ?? now };
    if (isOpen(v)) return this.end({ ...redacted, canceledAt: now });
    await this.d.save(redacted);
    return redacted;
  }

  private async end(v: Verification): Promise<Verification> {
    const ended: Verification = { ...v, webhook: { ...v.webhook, state: 'queued' } };
    await this.d.save(ended);
    if (ended.canceledAt !== undefined) this.emit(ended, { type: 'verification.canceled' });
    await this.d.enqueue(webhookEvent(ended));
    await this.d.release?.(ended).catch(() => undefined); // a canceled one holds no open budget (else it lapses by itself)
    await this.d.setAlarm(this.d.now() + RETENTION_MS);
    return ended;
  }

  /**
   * Ends an open verification as expired now, whatever its deadline: the
   * local stack's sandbox command (`npm run sandbox -- expire`) alone calls it.
   */
  async expireNow(): Promise<Verification | undefined> {
    const v = await this.d.load();
    if (v && isOpen(v)) await this.expire('not_finished');
    return this.d.load();
  }

  /** The last event again (same `webhook-id`, a fresh attempt); undefined while it has not ended. */
  async redeliver(): Promise<WebhookEvent | undefined> {
    const v = await this.d.load();
    if (!v || isOpen(v)) return undefined;
    const event = webhookEvent(v);
    await this.d.save({ ...v, webhook: { ...v.webhook, state: 'queued' } });
    await this.d.enqueue(event);
    return event;
  }

  /**
   * The record, after asking the vendor if that is due (a browser waits on
   * it): at once when a person is back on the return page (`arrived`), or
   * when the browser brings back a check id or token it had not brought
   * before, within HINT_POLLS for the verification (a hint is a return, not
   * a key to the vendor); otherwise at most once per poll interval however
   * many browsers ask.
   * A fault of a poll made for this call is thrown (the browser sees 502/504).
   */
  async observe(hint: ReturnHint = {}, arrived = false): Promise<Verification | undefined> {
    let v = await this.d.load();
    if (!v) return undefined;
    const brought =
      isOpen(v) && ((hint.checkId !== undefined && hint.checkId !== v.checkId) || (hint.token !== undefined && hint.token !== v.token));
    if (brought) {
      v = { ...v, ...(hint.checkId ? { checkId: hint.checkId } : {}), ...(hint.token ? { token: hint.token } : {}) };
    }
    const firstReturn = hint.returned !== undefined && v.flowReturnedAt === undefined;
    if (firstReturn) v = this.returnedOnce(v, hint.returned!);
    if (brought || firstReturn) await this.d.save(v);
    // A person back on the return page is a return (its secret is single use); a
    // browser's new check id or token is one only within HINT_POLLS, then it is
    // a browser asking like any other.
    const cause: PollCause = arrived || firstReturn || (brought && hintPollDue(v)) ? 'returned' : 'browser';
    if (this.inflight) await this.inflight.catch(() => undefined);
    else if (pollDue(v, this.d.now(), this.d.schedule, cause)) await this.poll(cause);
    return this.d.load();
  }

  private poll(cause: PollCause): Promise<void> {
    const run = (async () => {
      const v = await this.d.load();
      // A handed-off link whose outcome the vendor already gave only waits for its code.
      if (!v || !isOpen(v) || (awaitingClaim(v) && v.handoff.pendingStatus)) return;
      const started = pollStarted(v, this.d.now(), cause);
      await this.d.save(started);
      let answer: VendorAnswer;
      try {
        answer = await this.d.askVendor(v);
      } catch (err) {
        // A failing vendor is asked less and less often, whoever asks (the alarm doubles its wait too).
        const now = (await this.d.load())!;
        await this.d.save({ ...now, failedPolls: (now.failedPolls ?? 0) + 1 });
        if (cause !== 'alarm') await this.reschedule();
        throw err;
      }
      if (answer.entityId !== undefined && answer.entityId !== v.entityId) {
        console.error(JSON.stringify({ level: 'error', event: 'vendor_mismatch', verificationId: v.id }));
        throw vendorMismatch();
      }
      if (answer.checkStatus && answer.checkStatus !== CHECKING) await this.finish(answer.checkStatus);
      else {
        if (started.failedPolls) await this.d.save({ ...started, failedPolls: 0 });
        // Someone is waiting (or just came back): the alarm starts again from the base interval.
        if (cause !== 'alarm') await this.reschedule();
      }
    })();
    this.inflight = run;
    return run.finally(() => {
      if (this.inflight === run) this.inflight = undefined;
    });
  }

  private async finish(status: string): Promise<void> {
    const v = (await this.d.load())!;
    if (!isOpen(v)) return;
    if (awaitingClaim(v)) {
      // Not credited until the code shown on the first device is entered:
      // whoever typed someone else's number gets no outcome from their check.
      await this.d.save({ ...v, handoff: { ...v.handoff, pendingStatus: status } });
      return;
    }
    const done: Verification = { ...v, status, finalAt: this.d.now(), webhook: { ...v.webhook, state: 'queued' } };
    await this.d.save(done);
    this.emit(done, {
      type: 'verification.final',
      checkStatus: status,
      secondsSinceLink: (done.finalAt! - (done.linkCreatedAt ?? done.createdAt)) / 1000,
    });
    await this.d.enqueue(webhookEvent(done));
    await this.d.release?.(done).catch(() => undefined); // the hold lapses by itself otherwise
    await this.d.setAlarm(done.finalAt! + RETENTION_MS);
  }

  /** Moves the alarm to the next poll on the schedule (an open verification). */
  private async reschedule(): Promise<void> {
    const v = await this.d.load();
    if (v && isOpen(v)) await this.d.setAlarm(nextAlarmAt(v, this.d.now(), this.d.schedule));
  }

  /** The alarm: poll on the schedule while open (backing off while no one waits), and end it as expired at its deadline. */
  async alarm(): Promise<void> {
    const v = await this.d.load();
    if (!v) return;
    const now = this.d.now();
    if (!isOpen(v)) {
      if (now >= endedAt(v)! + RETENTION_MS) await this.d.remove();
      else await this.d.setAlarm(endedAt(v)! + RETENTION_MS);
      return;
    }
    if (now >= v.deadline) {
      const unclaimed = awaitingClaim(v) && (v.handoff.pendingStatus !== undefined || v.handoff.returned !== undefined);
      await this.expire(unclaimed ? 'not_claimed' : 'not_finished');
      return;
    }
    if (pollDue(v, now, this.d.schedule, 'alarm')) {
      try {
        await this.poll('alarm');
      } catch (err) {
        // A failed poll is tried again at the next alarm; the error's name only.
        console.error(JSON.stringify({ level: 'error', event: 'poll_failed', verificationId: v.id, error: errorName(err) }));
      }
    }
    await this.reschedule();
  }

  private async expire(reason: 'not_finished' | 'not_claimed'): Promise<void> {
    const v = (await this.d.load())!;
    const now = this.d.now();
    const expired: Verification = { ...v, expiredAt: now, expiredReason: reason, webhook: { ...v.webhook, state: 'queued' } };
    await this.d.save(expired);
    this.emit(expired, { type: 'verification.expired', reason });
    await this.d.enqueue(webhookEvent(expired));
    await this.d.release?.(expired).catch(() => undefined); // the hold lapses by itself otherwise
    await this.d.setAlarm(now + RETENTION_MS);
  }

  /**
   * The code shown on the first device, entered on the return page by the
   * browser that arrived there with the return secret (its `browserKey`).
   * The right code credits the outcome (at once if the vendor already gave
   * it); CLAIM_TRIES wrong ones end the verification as not claimed.
   */
  async claim(browserKey: string, code: string): Promise<ClaimOutcome> {
    const v = await this.d.load();
    const h = v?.handoff;
    if (!v || h?.code === undefined || !h.browserKey || !safeEqual(browserKey, h.browserKey)) return { kind: 'gone' };
    if (h.claimed) return { kind: 'claimed', ...(h.returned ? { returned: h.returned } : {}) };
    if (!isOpen(v) || (h.tries ?? 0) >= CLAIM_TRIES) return { kind: 'ended' };
    if (!safeEqual(code, h.code)) {
      const tries = (h.tries ?? 0) + 1;
      await this.d.save({ ...v, handoff: { ...h, tries } });
      if (tries < CLAIM_TRIES) return { kind: 'wrong', triesLeft: CLAIM_TRIES - tries };
      // The last wrong code ends it at once: verification.expired (not_claimed), /api/result final.
      await this.expire('not_claimed');
      return { kind: 'ended' };
    }
    await this.d.save({ ...v, handoff: { ...h, claimed: true } });
    if (h.pendingStatus) await this.finish(h.pendingStatus);
    else await this.observe({}, true).catch(() => undefined); // back with the code: asked at once (the alarm tries again if the vendor is down)
    return { kind: 'claimed', ...(h.returned ? { returned: h.returned } : {}) };
  }

  /**
   * A new link for the same verification (its link expired): the new expiry
   * and deadline, and for a QR or copied link the new single-use token and
   * hosted flow (not opened yet). Undefined when it has ended meanwhile, or
   * has had its MAX_RENEWALS.
   */
  async renew(r: Renewal): Promise<Verification | undefined> {
    const v = await this.d.load();
    if (!v || !isOpen(v) || (v.renewals ?? 0) >= MAX_RENEWALS) return undefined;
    const h = v.handoff;
    let handoff = h;
    if (r.link && h?.kind === 'link') {
      // The same return secret: a phone still in the old flow can come back.
      // A new one (the old was spent: a phone already came back) starts afresh.
      // The code shown on the first device, and the wrong tries, carry over either way.
      handoff =
        r.link.returnSecret === h.returnSecret
          ? { ...h, ...r.link, opened: false }
          : { kind: 'link', ...r.link, ...(h.code !== undefined ? { code: h.code, tries: h.tries ?? 0 } : {}) };
    }
    const next: Verification = {
      ...v,
      linkExpiresAt: r.linkExpiresAt,
      deadline: Math.max(v.deadline, r.deadline),
      renewals: (v.renewals ?? 0) + 1,
      ...(handoff ? { handoff } : {}),
      ...(r.sameDevice ? { link: r.sameDevice } : {}),
    };
    await this.d.save(next);
    return next;
  }

  /**
   * The handoff URL: where to send the phone, while it is valid and unused.
   * Only `consume` (the "Continue" POST of the page a GET or HEAD shows) uses
   * it up: link previews and mail scanners open links too.
   */
  async openHandoff(token: string, consume = true): Promise<string | undefined> {
    const v = await this.d.load();
    const h = v?.handoff;
    if (!v || !isOpen(v) || h?.kind !== 'link' || h.opened || !safeEqual(token, h.openToken) || this.d.now() >= v.linkExpiresAt)
      return undefined;
    if (consume) {
      await this.d.save({ ...v, handoff: { ...h, opened: true } });
      this.emit(v, { type: 'handoff.opened' });
    }
    return h.hostedUrl;
  }

  /**
   * The phone came back from the hosted flow to the worker's return page
   * with the return secret (single use: the first browser to arrive with it
   * gets a key, kept as its cookie). A return makes the vendor be asked at
   * once.
   */
  async arrive(secret: string, outcome: 'success' | 'error', hint: ReturnHint): Promise<Arrival | undefined> {
    const v = await this.d.load();
    const h = v?.handoff;
    if (!v || !h || !safeEqual(secret, h.returnSecret)) return undefined;
    if (h.browserKey) return undefined; // single use: someone already arrived with it
    const browserKey = randomToken();
    await this.d.save(this.returnedOnce({ ...v, handoff: { ...h, browserKey, returned: outcome } }, outcome));
    await this.observe(hint, true).catch(() => undefined); // the alarm tries again if the vendor is down
    return { browserKey, needsCode: h.code !== undefined && !h.claimed && isOpen(v) };
  }

  /** What the delivery queue learnt about the webhook. */
  async webhookOutcome(state: WebhookState, attempts: number, status?: number): Promise<void> {
    const v = await this.d.load();
    if (!v) return;
    await this.d.save({ ...v, webhook: { state, attempts, ...(status !== undefined ? { lastStatus: status } : {}), at: this.d.now() } });
  }
}
