/**
 * What happens to one verification over time, with everything it touches
 * passed in (storage, clock, vendor, queue), so the same code runs in the
 * Durable Object and, in node tests, against a map and a controlled clock.
 */
import { vendorMismatch } from '../vendor-api/errors';
import { randomToken, safeEqual } from '../lib/random';
import {
  awaitingClaim,
  CHECKING,
  CLAIM_TRIES,
  hasLink,
  isOpen,
  lifecycle,
  MAX_RENEWALS,
  pollDue,
  webhookEvent,
  type DemoDelivery,
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
  pollMs: number;
  /** Asks the vendor about the verification's check; throws the vendor's fault. */
  askVendor(v: Verification): Promise<VendorAnswer>;
  /** Hands a webhook event to the delivery queue (at least once). */
  enqueue(event: WebhookEvent): Promise<void>;
}

/** What a browser may add when it comes back from the hosted flow. */
export interface ReturnHint {
  checkId?: string;
  token?: string;
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

  async create(v: Verification): Promise<void> {
    await this.d.save(v);
    // Without a link there is nothing to ask the vendor: wake at the deadline to expire it.
    await this.d.setAlarm(hasLink(v) ? Math.min(v.createdAt + this.d.pollMs, v.deadline) : v.deadline);
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
    };
    await this.d.save(next);
    await this.d.setAlarm(Math.min(now + this.d.pollMs, next.deadline));
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
    const { customerRef: _r, entityId: _e, checkId: _c, token: _t, link: _l, handoff: _h, demoDeliveries: _d, ...rest } = v;
    const redacted: Verification = { ...rest, redactedAt: v.redactedAt ?? now };
    if (isOpen(v)) return this.end({ ...redacted, canceledAt: now });
    await this.d.save(redacted);
    return redacted;
  }

  private async end(v: Verification): Promise<Verification> {
    const ended: Verification = { ...v, webhook: { ...v.webhook, state: 'queued' } };
    await this.d.save(ended);
    await this.d.enqueue(webhookEvent(ended));
    await this.d.setAlarm(this.d.now() + RETENTION_MS);
    return ended;
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
   * The record, after asking the vendor if that is due: at once when the
   * browser brings back a check id or token it had not brought before,
   * otherwise at most once per poll interval however many browsers ask.
   * A fault of a poll made for this call is thrown (the browser sees 502/504).
   */
  async observe(hint: ReturnHint = {}): Promise<Verification | undefined> {
    let v = await this.d.load();
    if (!v) return undefined;
    const returned =
      isOpen(v) && ((hint.checkId !== undefined && hint.checkId !== v.checkId) || (hint.token !== undefined && hint.token !== v.token));
    if (returned) {
      v = { ...v, ...(hint.checkId ? { checkId: hint.checkId } : {}), ...(hint.token ? { token: hint.token } : {}) };
      await this.d.save(v);
    }
    if (this.inflight) await this.inflight.catch(() => undefined);
    else if (pollDue(v, this.d.now(), this.d.pollMs, returned)) await this.poll();
    return this.d.load();
  }

  private poll(): Promise<void> {
    const run = (async () => {
      const v = await this.d.load();
      // A texted link whose outcome the vendor already gave only waits for its code.
      if (!v || !isOpen(v) || (awaitingClaim(v) && v.handoff.pendingStatus)) return;
      const now = this.d.now();
      // Counted before the call: a slow or failing vendor still costs a poll.
      await this.d.save({ ...v, lastPolledAt: now, polls: v.polls + 1 });
      const answer = await this.d.askVendor(v);
      if (answer.entityId !== undefined && answer.entityId !== v.entityId) {
        console.error(JSON.stringify({ level: 'error', event: 'vendor_mismatch', verificationId: v.id }));
        throw vendorMismatch();
      }
      if (answer.checkStatus && answer.checkStatus !== CHECKING) await this.finish(answer.checkStatus);
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
    await this.d.enqueue(webhookEvent(done));
    await this.d.setAlarm(done.finalAt! + RETENTION_MS);
  }

  /** The alarm: poll while open, and end it as expired at its deadline. */
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
    if (pollDue(v, now, this.d.pollMs, false)) {
      try {
        await this.poll();
      } catch (err) {
        // A failed poll is tried again at the next alarm; the error's name only.
        console.error(
          JSON.stringify({ level: 'error', event: 'poll_failed', verificationId: v.id, error: (err as Error)?.name ?? 'Error' }),
        );
      }
    }
    const after = await this.d.load();
    if (after && isOpen(after)) await this.d.setAlarm(hasLink(after) ? Math.min(this.d.now() + this.d.pollMs, after.deadline) : after.deadline);
  }

  private async expire(reason: 'not_finished' | 'not_claimed'): Promise<void> {
    const v = (await this.d.load())!;
    const now = this.d.now();
    const expired: Verification = { ...v, expiredAt: now, expiredReason: reason, webhook: { ...v.webhook, state: 'queued' } };
    await this.d.save(expired);
    await this.d.enqueue(webhookEvent(expired));
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
    if (!v || h?.kind !== 'sms' || !h.browserKey || !safeEqual(browserKey, h.browserKey)) return { kind: 'gone' };
    if (h.claimed) return { kind: 'claimed', ...(h.returned ? { returned: h.returned } : {}) };
    if (!isOpen(v) || h.tries >= CLAIM_TRIES) return { kind: 'ended' };
    if (!safeEqual(code, h.code)) {
      const tries = h.tries + 1;
      await this.d.save({ ...v, handoff: { ...h, tries } });
      if (tries < CLAIM_TRIES) return { kind: 'wrong', triesLeft: CLAIM_TRIES - tries };
      await this.expire('not_claimed');
      return { kind: 'ended' };
    }
    await this.d.save({ ...v, handoff: { ...h, claimed: true } });
    if (h.pendingStatus) await this.finish(h.pendingStatus);
    else await this.observe({}).catch(() => undefined); // the alarm tries again if the vendor is down
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
      handoff = r.link.returnSecret === h.returnSecret ? { ...h, ...r.link, opened: false } : { kind: 'link', ...r.link };
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

  /** The handoff URL was opened: where to send the phone, once. */
  async openHandoff(token: string): Promise<string | undefined> {
    const v = await this.d.load();
    const h = v?.handoff;
    if (!v || h?.kind !== 'link' || h.opened || !safeEqual(token, h.openToken) || this.d.now() >= v.linkExpiresAt) return undefined;
    await this.d.save({ ...v, handoff: { ...h, opened: true } });
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
    await this.d.save({ ...v, handoff: { ...h, browserKey, returned: outcome } });
    await this.observe(hint).catch(() => undefined); // the alarm tries again if the vendor is down
    return { browserKey, needsCode: h.kind === 'sms' && isOpen(v) };
  }

  /** A delivery the demo receiver verified (kept: the last 10). */
  async recordDemoDelivery(d: DemoDelivery): Promise<void> {
    const v = await this.d.load();
    if (!v) return;
    await this.d.save({ ...v, demoDeliveries: [...(v.demoDeliveries ?? []), d].slice(-10) });
  }

  /** What the delivery queue learnt about the webhook. */
  async webhookOutcome(state: WebhookState, attempts: number, status?: number): Promise<void> {
    const v = await this.d.load();
    if (!v) return;
    await this.d.save({ ...v, webhook: { state, attempts, ...(status !== undefined ? { lastStatus: status } : {}), at: this.d.now() } });
  }
}
