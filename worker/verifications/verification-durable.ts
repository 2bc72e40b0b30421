/**
 * The Durable Object of one verification (keyed by verificationId):
 * consistent for that verification across isolates and locations, with an
 * alarm that polls the vendor on its own schedule until the outcome is final
 * or the link's expiry plus the grace period has passed.
 */
import { DurableObject } from 'cloudflare:workers';
import { releaseHolds } from '../lib/allowances';
import { bindingIfAny, type Env } from '../lib/env';
import { deleteIndex, indexRow, rowKey, writeIndex } from './verification-index';
import { config } from '../config';
import type { LinkStart, Renewal, Verification, WebhookEvent, WebhookState } from './verification';
import { VerificationLogic, type Arrival, type ClaimOutcome, type ReturnHint } from './verification-logic';
import { askVendor, enqueue, observeSafely, type Observation } from './verification-store';
import { emitOne } from '../ops/events';

export class VerificationStore extends DurableObject<Env> {
  private readonly logic = new VerificationLogic({
    load: () => this.ctx.storage.get<Verification>('v'),
    save: async (v) => {
      await this.ctx.storage.put('v', v);
      await this.index(v);
    },
    remove: async () => {
      const v = await this.ctx.storage.get<Verification>('v');
      await this.ctx.storage.deleteAll();
      const db = bindingIfAny(this.env, 'DB');
      if (v && db) await deleteIndex(db, v.id).catch(() => this.indexFailed(v.id));
    },
    setAlarm: (at) => this.ctx.storage.setAlarm(at),
    now: () => Date.now(),
    schedule: config(this.env).outcomes.poll,
    askVendor: (v) => askVendor(this.env, v, this.ctx),
    enqueue: (e) => enqueue(this.env, e),
    release: (v) => releaseHolds(this.env, v.id, v.holds),
    emit: (partnerId, event) => emitOne(this.env, this.ctx, partnerId, event),
  });

  /** What this object last wrote to the index (a poll that changes nothing writes nothing). */
  private indexed: string | undefined;

  /** The verification's row in D1, on every state change. A failure is logged; the next change writes it again. */
  private async index(v: Verification): Promise<void> {
    const db = bindingIfAny(this.env, 'DB');
    if (!db) return;
    const row = indexRow(v, !config(this.env).vendor.sandbox);
    const key = rowKey(row);
    if (key === this.indexed) return;
    try {
      await writeIndex(db, row);
      this.indexed = key;
    } catch {
      this.indexFailed(v.id);
    }
  }

  private indexFailed(verificationId: string): void {
    this.indexed = undefined;
    console.error(JSON.stringify({ level: 'error', event: 'index_write_failed', verificationId }));
  }

  create(v: Verification): Promise<void> {
    return this.logic.create(v);
  }
  observe(hint: ReturnHint): Promise<Observation> {
    return observeSafely(() => this.logic.observe(hint));
  }
  webhookOutcome(state: WebhookState, attempts: number, status?: number): Promise<void> {
    return this.logic.webhookOutcome(state, attempts, status);
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
  startLink(s: LinkStart): Promise<Verification | undefined> {
    return this.logic.startLink(s);
  }
  cancel(): Promise<Verification | undefined> {
    return this.logic.cancel();
  }
  redact(): Promise<Verification | undefined> {
    return this.logic.redact();
  }
  redeliver(): Promise<WebhookEvent | undefined> {
    return this.logic.redeliver();
  }
  read(): Promise<Verification | undefined> {
    return this.ctx.storage.get<Verification>('v');
  }
  alarm(): Promise<void> {
    return this.logic.alarm();
  }
}
