/**
 * The Durable Object of one verification (keyed by verificationId):
 * consistent for that verification across isolates and locations, with an
 * alarm that polls the vendor on its own schedule until the outcome is final
 * or the link's expiry plus the grace period has passed, and hands its
 * webhook events to the queue until each is delivered (the outbox,
 * webhook-outbox.ts). One alarm serves both: it is set to the earlier of the
 * logic's time and the outbox's next hand-off.
 */
import { DurableObject } from 'cloudflare:workers';
import { releaseHolds } from '../lib/allowances';
import { bindingIfAny, type Env } from '../lib/env';
import {
  deleteIndex,
  entityKey,
  INDEX_RETRY_MS,
  indexOwedAfter,
  indexRow,
  rowKey,
  writeIndex,
  type IndexOwed,
  type IndexRow,
} from './verification-index';
import { config } from '../config';
import type { StoredVerification, Verification } from './verification';
import { fromStored } from './lifecycle';
import type { Command } from './commands';
import { VerificationLogic } from './verification-logic';
import { askVendor, onWire, type Wire } from './verification-store';
import { portsFor } from '../ports-for';
import type { Plugins, Ports } from '../ports';
import { emitOne } from '../ops/events';
import { errorName } from '../lib/errors';
import { systemClock, type Clock } from '../lib/clock';
import { log } from '../lib/log';
import { forgetDeliveries, writeDelivery } from '../ops/store';
import { handOff, nextDueAt, refused, type OutboxEntry, type RetryPolicy } from './webhook-outbox';
import type { WebhookMessage } from './webhook-delivery';
import { writeChange } from './record-write';
import { missingMigration } from '../lib/d1-schema';
import { allowancesPace } from './vendor-pace';
import { NewestLast } from './newest-last';

/** Commands that only read: nothing to settle after them. */
const READS = new Set<Command['type']>(['read', 'undelivered', 'outbox.event']);

export class VerificationObject extends DurableObject<Env> {
  /** The object's one clock (the logic's `now`, the outbox's times). */
  private readonly now: Clock = systemClock;

  /**
   * What the deployment plugs in: none here (production); the local entry's
   * subclass gives the same plug-ins as its app (the sandbox as the vendor,
   * the demo partners), so an alarm asks the vendor the way a request does.
   */
  protected plugins(): Plugins {
    return {};
  }

  private portsMemo: Ports | undefined;
  /** The ports of this object's alarms and calls (portsFor, as the app's requests build them). */
  private get ports(): Ports {
    return (this.portsMemo ??= portsFor(this.env, this.plugins()));
  }

  private readonly logic = new VerificationLogic({
    // A record written before the state was explicit gets it here, once (its next write stores it).
    load: async () => {
      const stored = await this.ctx.storage.get<StoredVerification>('v');
      return stored && fromStored(stored);
    },
    // The record and the events its change causes in one put (record-write.ts); its index row is written
    // once the call is done (`settle`).
    save: async (v, events) => {
      this.toIndex = v;
      for (const sequence of await writeChange(this.ctx.storage, this, v, events, this.now())) this.changed.add(sequence);
    },
    remove: async () => {
      const v = await this.ctx.storage.get<Verification>('v');
      await this.ctx.storage.deleteAll();
      this.outbox = [];
      this.logicAlarmAt = undefined;
      this.toIndex = undefined;
      this.changed.clear();
      // A row still being written lands before the delete, never after it.
      await this.rows.stop();
      this.indexOwed = undefined;
      const db = bindingIfAny(this.env, 'DB');
      if (v && db) {
        await deleteIndex(db, v.id).catch(() => this.indexFailed(v.id));
        await forgetDeliveries(db, v.id).catch(() => this.indexFailed(v.id));
      }
    },
    setAlarm: async (at) => {
      this.logicAlarmAt = at;
      await this.ctx.storage.put('alarmAt', at);
      await this.arm();
    },
    now: () => this.now(),
    schedule: config(this.env).outcomes.poll,
    lifecycle: config(this.env).outcomes.lifecycle,
    askVendor: (v) => askVendor(this.env, this.ports, v, this.ctx),
    release: (v) => releaseHolds(this.ports.allowances, v.id, v.holds),
    emit: (partnerId, event) => emitOne(this.env, this.ctx, partnerId, event),
    pace: allowancesPace(this.ports.allowances),
    outbox: {
      entries: () => this.outbox,
      store: (entries, ...changed) => this.store(entries, ...changed),
      policy: this.policy,
    },
  });

  /** The outbox, kept in memory too (read once when the object starts), so an event is written with no read in between. */
  outbox: OutboxEntry[] = [];
  /** When the logic wants its alarm (polling, expiry, retention); the alarm runs at the earlier of this and the outbox's next hand-off. */
  private logicAlarmAt: number | undefined;
  /** The record to index once the call is done. */
  private toIndex: Verification | undefined;
  /** A missed index write the alarm makes again (verification-index.ts `indexOwedAfter`). */
  private indexOwed: IndexOwed | undefined;
  /** Outbox entries (by sequence) whose delivery row the console has not seen yet. */
  private readonly changed = new Set<number>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const got = await ctx.storage.get<OutboxEntry[] | number | IndexOwed>(['outbox', 'alarmAt', 'indexOwed']);
      this.outbox = (got.get('outbox') as OutboxEntry[] | undefined) ?? [];
      this.logicAlarmAt = got.get('alarmAt') as number | undefined;
      this.indexOwed = got.get('indexOwed') as IndexOwed | undefined;
    });
  }

  private get policy(): RetryPolicy {
    const o = config(this.env).outcomes;
    return { schedule: o.webhookRetrySchedule, maxAttempts: o.webhookMaxAttempts };
  }

  /** The outbox written (a storage put, no await before it), the entries named (by sequence) marked for the console. */
  private store(entries: OutboxEntry[], ...changed: number[]): void {
    this.outbox = entries;
    void this.ctx.storage.put('outbox', entries);
    for (const sequence of changed) this.changed.add(sequence);
  }

  /** The alarm at the earlier of the logic's time and the outbox's next hand-off. */
  private async arm(): Promise<void> {
    const times = [this.logicAlarmAt, nextDueAt(this.outbox), this.indexOwed?.at].filter((t): t is number => t !== undefined);
    if (times.length) await this.ctx.storage.setAlarm(Math.min(...times));
  }

  /**
   * After each call: the record and its outbox are committed by now; the
   * index row is marked owed in storage and the alarm armed; then the index
   * row, the events due handed to the queue, the console's delivery rows, and
   * the alarm again. Each only after the storage commit that made it owed, so
   * an eviction or crash anywhere here loses nothing the alarm cannot do
   * again. With `rowLater` that second part runs just after the answer
   * (`waitUntil`): a D1 write is most of what a new link costs beyond the
   * durable floor, and the browser that asked for the link never lists; its
   * row lands milliseconds later (docs/decisions.md).
   */
  private async settle<T>(run: Promise<T>, rowLater = false): Promise<T> {
    try {
      return await run;
    } finally {
      const v = this.toIndex;
      this.toIndex = undefined;
      if (v && (await this.rowOf(v)).key !== this.indexed) {
        this.rows.owe(v);
        // Written after the answer: owed in storage first, so an object evicted before the write makes it from its alarm.
        if (rowLater) await this.oweIndex();
      }
      await this.arm();
      if (rowLater) this.ctx.waitUntil(this.afterAnswer());
      else await this.afterAnswer();
    }
  }

  /** The index row, then the queue and the console; then the alarm, moved back once nothing is owed. */
  private async afterAnswer(): Promise<void> {
    await this.rows.flush();
    await this.sendDue();
    await this.writeDeliveries();
    await this.arm();
  }

  /** The index row's writes, one at a time and newest last (newest-last.ts). */
  private readonly rows = new NewestLast<Verification>((v) => this.index(v));

  /** The row owed in storage: the alarm writes it if this object is gone before it does. */
  private async oweIndex(): Promise<void> {
    if (this.indexOwed || !bindingIfAny(this.env, 'DB')) return;
    this.indexOwed = { at: this.now() + INDEX_RETRY_MS, failures: 0 };
    await this.ctx.storage.put('indexOwed', this.indexOwed);
  }

  private async rowOf(v: Verification): Promise<{ row: IndexRow; owner: string | null; key: string }> {
    const row = indexRow(v, !config(this.env).vendor.sandbox, this.now());
    const owner = v.entityId !== undefined ? await entityKey(v.entityId) : null;
    return { row, owner, key: `${rowKey(row)} ${owner}` };
  }

  /** Hands every event due to the webhook queue; a refusal is tried again soon (the alarm). */
  private async sendDue(): Promise<void> {
    const { entries, due } = handOff(this.outbox, this.now(), this.policy);
    if (entries.every((e, i) => e === this.outbox[i])) return;
    this.store(entries, ...entries.filter((e, i) => e !== this.outbox[i] && e.state === 'dead').map((e) => e.sequence));
    const queue = bindingIfAny(this.env, 'WEBHOOK_QUEUE');
    for (const e of due) {
      const m: WebhookMessage = {
        verificationId: e.event.verificationId,
        partnerId: e.event.partnerId,
        workerOrigin: e.event.workerOrigin,
        type: e.event.type,
        id: e.event.id,
        sequence: e.sequence,
        attempt: e.attempts + 1,
      };
      try {
        if (!queue) throw new Error('no WEBHOOK_QUEUE binding');
        await queue.send(m, { contentType: 'json' });
      } catch (err) {
        log.error('webhook_queue_refused', { verificationId: m.verificationId, type: m.type, error: errorName(err) });
        this.store(refused(this.outbox, e.sequence, this.now()));
      }
    }
  }

  /** The console's rows (ops_webhook_deliveries) of the entries that changed; a failure is logged and written at the next change. */
  private async writeDeliveries(): Promise<void> {
    const db = bindingIfAny(this.env, 'DB');
    if (!db || this.changed.size === 0) return;
    const entries = this.outbox.filter((e) => this.changed.has(e.sequence));
    this.changed.clear();
    for (const e of entries) {
      await writeDelivery(db, {
        verificationId: e.event.verificationId,
        type: e.event.type,
        partnerId: e.event.partnerId,
        state: e.state,
        attempts: e.attempts,
        ...(e.lastStatus !== undefined ? { lastStatus: e.lastStatus } : {}),
        ...(e.lastFailure ? { lastFailure: e.lastFailure } : {}),
        at: e.lastAttemptAt ?? e.createdAt,
      }).catch(() => {
        this.changed.add(e.sequence);
        log.error('delivery_write_failed', { verificationId: e.event.verificationId });
      });
    }
  }

  /** What this object last wrote to the index (a poll that changes nothing writes nothing). */
  private indexed: string | undefined;

  /** The verification's row in D1, on every state change. A failure is logged; the next change writes it again. */
  private async index(v: Verification): Promise<void> {
    const db = bindingIfAny(this.env, 'DB');
    if (!db) return;
    const { row, owner, key } = await this.rowOf(v);
    if (key === this.indexed) return;
    try {
      await writeIndex(db, row, owner);
      this.indexed = key;
      // Owed still if a newer change came meanwhile (the next turn of `rows` writes it).
      if (this.indexOwed && !this.rows.owing) {
        this.indexOwed = undefined;
        await this.ctx.storage.delete('indexOwed');
      }
    } catch (err) {
      this.indexFailed(v.id, err);
      void this.ctx.storage.put('indexOwed', (this.indexOwed = indexOwedAfter(this.indexOwed, this.now())));
    }
  }

  private indexFailed(verificationId: string, err?: unknown): void {
    this.indexed = undefined;
    // A D1 behind the code (a migration not applied) says which one to apply.
    const migration = missingMigration(err);
    log.error('index_write_failed', { verificationId, ...(migration ? { migration: `migrations/${migration}` } : {}) });
  }

  /**
   * The object's one RPC method: applies `command` to the record as it is at
   * the write (verification-logic.ts), then settles what it made owed. A
   * vendor fault or a mismatch crosses the RPC boundary as data (`Wire`).
   */
  execute(command: Command): Promise<Wire<unknown>> {
    const run = onWire(() => this.logic.execute(command));
    return READS.has(command.type) ? run : this.settle(run, command.type === 'create' && command.listed === 'after-answer');
  }

  async alarm(): Promise<void> {
    await this.settle(
      (async () => {
        if (this.indexOwed && this.now() >= this.indexOwed.at) this.toIndex ??= await this.logic.execute({ type: 'read' });
        // The logic's turn only when it asked for this time (the outbox may have woken it earlier).
        if (this.logicAlarmAt === undefined || this.now() >= this.logicAlarmAt) {
          // When it was set for: an overdue poll (after a restart) is spread, not made at once (vendor-pace.ts).
          const plannedAt = this.logicAlarmAt;
          this.logicAlarmAt = undefined;
          await this.logic.alarm(plannedAt);
        }
      })(),
    );
  }
}
