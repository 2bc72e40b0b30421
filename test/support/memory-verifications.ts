/**
 * Verifications in memory, for node tests that run the app without the
 * VERIFICATIONS Durable Object: the worker's own VerificationLogic per id, a
 * controllable clock, alarms run by hand. The node app's `verifications`
 * port (worker/ports.ts), given by `useNodeTwins` (test/support/node-twins.ts),
 * which also gives it the ports its logic uses, as the Durable Object builds
 * its own.
 */
import type { Env } from '../../worker/lib/env';
import { releaseHolds } from '../../worker/lib/allowances';
import { config } from '../../worker/config';
import type { LinkStart, Renewal, Verification, WebhookEvent, WebhookState } from '../../worker/verifications/verification';
import { VerificationLogic, type ReturnHint, type VerificationDeps } from '../../worker/verifications/verification-logic';
import { askVendor, observeSafely, unpack } from '../../worker/verifications/verification-store';
import type { Ports, Verifications } from '../../worker/ports';
import { added, attemptFor, reported, undelivered, type AttemptReport, type OutboxEntry } from '../../worker/verifications/webhook-outbox';
import { emitOne } from '../../worker/ops/events';

/** The in-memory stand-in (node tests): one logic per id, a controllable clock, alarms run by hand. */
export class MemoryVerifications implements Verifications {
  readonly records = new Map<string, Verification>();
  readonly alarms = new Map<string, number>();
  readonly events: WebhookEvent[] = [];
  /** Each verification's webhook outbox (the Durable Object's, without a queue: nothing is handed off). */
  readonly outboxes = new Map<string, OutboxEntry[]>();
  private readonly logics = new Map<string, VerificationLogic>();
  /** The ports its logic asks the vendor and gives budgets back through (the Durable Object's own `portsFor`). */
  ports: Ports | undefined;

  constructor(
    private readonly env: Env,
    readonly clock: { now(): number } = { now: () => Date.now() },
  ) {}

  logic(id: string): VerificationLogic {
    let l = this.logics.get(id);
    if (!l) {
      const deps: VerificationDeps = {
        load: async () => this.records.get(id),
        save: async (v, events) => {
          this.records.set(id, v);
          for (const e of events) {
            this.events.push(e);
            this.outboxes.set(id, added(this.outboxes.get(id) ?? [], e, this.clock.now()));
          }
        },
        remove: async () => void this.records.delete(id),
        setAlarm: async (at) => void this.alarms.set(id, at),
        now: () => this.clock.now(),
        schedule: config(this.env).outcomes.poll,
        lifecycle: config(this.env).outcomes.lifecycle,
        askVendor: (v) => askVendor(this.env, this.plugged(), v),
        release: (v) => releaseHolds(this.plugged().allowances, v.id, v.holds),
        emit: (partnerId, event) => emitOne(this.env, undefined, partnerId, event),
      };
      l = new VerificationLogic(deps);
      this.logics.set(id, l);
    }
    return l;
  }
  private plugged(): Ports {
    if (!this.ports) throw new Error('MemoryVerifications has no ports: give it to useNodeTwins');
    return this.ports;
  }

  create(v: Verification) {
    return this.logic(v.id).create(v);
  }
  async observe(id: string, hint: ReturnHint = {}) {
    return unpack(await observeSafely(() => this.logic(id).observe(hint)));
  }
  webhookOutcome(id: string, state: WebhookState, attempts: number, status?: number) {
    return this.logic(id).webhookOutcome(state, attempts, status);
  }
  async read(id: string) {
    return this.records.get(id);
  }
  beginRenewal(id: string) {
    return this.logic(id).beginRenewal();
  }
  async endRenewal(id: string, lease: string) {
    this.logic(id).endRenewal(lease);
  }
  renew(id: string, r: Renewal) {
    return this.logic(id).renew(r);
  }
  openHandoff(id: string, token: string, consume = true) {
    return this.logic(id).openHandoff(token, consume);
  }
  arrive(id: string, secret: string, outcome: 'success' | 'error', hint: ReturnHint) {
    return this.logic(id).arrive(secret, outcome, hint);
  }
  claim(id: string, browserKey: string, code: string) {
    return this.logic(id).claim(browserKey, code);
  }
  startLink(id: string, s: LinkStart) {
    return this.logic(id).startLink(s);
  }
  cancel(id: string) {
    return this.logic(id).cancel();
  }
  redact(id: string) {
    return this.logic(id).redact();
  }
  redeliver(id: string) {
    return this.logic(id).redeliver();
  }
  async undelivered(id: string) {
    return undelivered(this.outboxes.get(id) ?? []);
  }
  async outboxEvent(id: string, sequence: number, attempt: number) {
    return attemptFor(this.outboxes.get(id) ?? [], sequence, attempt)?.event;
  }
  async webhookAttempt(id: string, sequence: number, attempt: number, report: AttemptReport) {
    const o = config(this.env).outcomes;
    const r = reported(this.outboxes.get(id) ?? [], sequence, attempt, report, this.clock.now(), {
      schedule: o.webhookRetrySchedule,
      maxAttempts: o.webhookMaxAttempts,
    });
    if (!r) return undefined;
    this.outboxes.set(id, r.entries);
    await this.logic(id).webhookOutcome(r.entry.state, r.entry.attempts, r.entry.lastStatus);
    return r.result;
  }
  async adopt(id: string, event: WebhookEvent) {
    if (this.records.has(id)) this.outboxes.set(id, added(this.outboxes.get(id) ?? [], event, this.clock.now()));
  }
  async askNow(id: string) {
    return unpack(await observeSafely(() => this.logic(id).observe({}, true)));
  }
  expireNow(id: string) {
    return this.logic(id).expireNow();
  }
  /** Forgets every verification but `keep` (as if their objects were evicted and gone). */
  forgetAllBut(...keep: string[]): void {
    for (const map of [this.records, this.alarms, this.logics, this.outboxes] as Map<string, unknown>[]) {
      for (const id of [...map.keys()]) if (!keep.includes(id)) map.delete(id);
    }
    this.events.length = 0;
  }
  /** Runs every alarm that is due on the clock. */
  async runDueAlarms(): Promise<void> {
    for (const [id, at] of [...this.alarms]) {
      if (at <= this.clock.now()) {
        this.alarms.delete(id);
        await this.logic(id).alarm();
      }
    }
  }
}
