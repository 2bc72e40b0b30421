/**
 * The Durable Object of one verification (keyed by verificationId):
 * consistent for that verification across isolates and locations, with an
 * alarm that polls the vendor on its own schedule until the outcome is final
 * or the link's expiry plus the grace period has passed.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../lib/env';
import { pollSchedule } from './settings';
import type { DemoDelivery, Renewal, Verification, WebhookState } from './verification';
import { VerificationLogic, type Arrival, type ClaimOutcome, type ReturnHint } from './verification-logic';
import { askVendor, enqueue, observeSafely, type Observation } from './verification-store';
import { emitOne } from '../ops/events';

export class VerificationStore extends DurableObject<Env> {
  private readonly logic = new VerificationLogic({
    load: () => this.ctx.storage.get<Verification>('v'),
    save: (v) => this.ctx.storage.put('v', v),
    remove: () => this.ctx.storage.deleteAll(),
    setAlarm: (at) => this.ctx.storage.setAlarm(at),
    now: () => Date.now(),
    schedule: pollSchedule(this.env),
    askVendor: (v) => askVendor(this.env, v, this.ctx),
    enqueue: (e) => enqueue(this.env, e),
    emit: (partnerId, event) => emitOne(this.env, this.ctx, partnerId, event),
  });

  create(v: Verification): Promise<void> {
    return this.logic.create(v);
  }
  observe(hint: ReturnHint): Promise<Observation> {
    return observeSafely(() => this.logic.observe(hint));
  }
  webhookOutcome(state: WebhookState, attempts: number, status?: number): Promise<void> {
    return this.logic.webhookOutcome(state, attempts, status);
  }
  recordDemoDelivery(d: DemoDelivery): Promise<void> {
    return this.logic.recordDemoDelivery(d);
  }
  renew(r: Renewal): Promise<Verification | undefined> {
    return this.logic.renew(r);
  }
  openHandoff(token: string, consume: boolean): Promise<string | undefined> {
    return this.logic.openHandoff(token, consume);
  }
  arrive(secret: string, outcome: 'success' | 'error', hint: ReturnHint): Promise<Arrival | undefined> {
    return this.logic.arrive(secret, outcome, hint);
  }
  claim(browserKey: string, code: string): Promise<ClaimOutcome> {
    return this.logic.claim(browserKey, code);
  }
  read(): Promise<Verification | undefined> {
    return this.ctx.storage.get<Verification>('v');
  }
  alarm(): Promise<void> {
    return this.logic.alarm();
  }
}
