/**
 * Verifications in memory, for node tests that run the app without the
 * VERIFICATIONS Durable Object, and the conformance suite's in-memory
 * executor (test/verifications/): the worker's own VerificationLogic per id
 * (what the Durable Object runs), its record and outbox written as the object
 * writes them (record-write.ts), a controllable clock, alarms run by hand.
 * The node app's `verifications` port (worker/ports.ts), given by
 * `useNodeTwins` (test/support/node-twins.ts), which also gives it the ports
 * its logic uses, as the Durable Object builds its own.
 */
import type { Env } from '../../worker/lib/env';
import { releaseHolds } from '../../worker/lib/allowances';
import { config } from '../../worker/config';
import type { Verification, WebhookEvent } from '../../worker/verifications/verification';
import { fromStored } from '../../worker/verifications/lifecycle';
import { VerificationLogic, type VerificationDeps } from '../../worker/verifications/verification-logic';
import { askVendor } from '../../worker/verifications/verification-store';
import type { Command, ResultOf } from '../../worker/verifications/commands';
import type { Ports, Verifications } from '../../worker/ports';
import type { OutboxEntry } from '../../worker/verifications/webhook-outbox';
import { writeChange } from '../../worker/verifications/record-write';
import { emitOne } from '../../worker/ops/events';
import { allowancesPace } from '../../worker/verifications/vendor-pace';

/** The in-memory stand-in (node tests): one logic per id, a controllable clock, alarms run by hand. */
export class MemoryVerifications implements Verifications {
  readonly records = new Map<string, Verification>();
  readonly alarms = new Map<string, number>();
  /** Every webhook event written, in order (across verifications). */
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

  /** The port's one method: the command run by verification `id`'s logic, as its Durable Object runs it. */
  execute<C extends Command>(id: string, command: C): Promise<ResultOf<C>> {
    return this.logic(command.type === 'create' ? command.verification.id : id).execute(command);
  }

  logic(id: string): VerificationLogic {
    let l = this.logics.get(id);
    if (!l) {
      const o = config(this.env).outcomes;
      const kept = {
        get outbox() {
          return outboxes.get(id) ?? [];
        },
        set outbox(entries: OutboxEntry[]) {
          outboxes.set(id, entries);
        },
      };
      const { records, outboxes } = this;
      const deps: VerificationDeps = {
        // As the Durable Object reads it: a record stored before the explicit state gets it derived.
        load: async () => {
          const v = this.records.get(id);
          return v && fromStored(v);
        },
        // As the Durable Object writes it: the record and its outbox together (record-write.ts).
        save: async (v, events) => {
          this.events.push(...events);
          const put = async (e: Record<string, unknown>) => {
            if (e.v) records.set(id, e.v as Verification);
          };
          await writeChange({ put }, kept, v, events, this.clock.now());
        },
        remove: async () => void this.records.delete(id),
        setAlarm: async (at) => void this.alarms.set(id, at),
        now: () => this.clock.now(),
        schedule: o.poll,
        lifecycle: o.lifecycle,
        askVendor: (v) => askVendor(this.env, this.plugged(), v),
        release: (v) => releaseHolds(this.plugged().allowances, v.id, v.holds),
        emit: (partnerId, event) => emitOne(this.env, undefined, partnerId, event),
        pace: {
          pausedUntil: (partnerId) => allowancesPace(this.plugged().allowances).pausedUntil(partnerId),
          pause: (partnerId, until) => allowancesPace(this.plugged().allowances).pause(partnerId, until),
        },
        outbox: {
          entries: () => kept.outbox,
          store: (entries) => void (kept.outbox = entries),
          policy: { schedule: o.webhookRetrySchedule, maxAttempts: o.webhookMaxAttempts },
        },
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

  /** Forgets every verification but `keep` (as if their objects were evicted and gone). */
  forgetAllBut(...keep: string[]): void {
    for (const map of [this.records, this.alarms, this.logics, this.outboxes] as Map<string, unknown>[]) {
      for (const id of [...map.keys()]) if (!keep.includes(id)) map.delete(id);
    }
    this.events.length = 0;
  }
  /**
   * Whether an alarm tells the logic when it was set for, as the Durable
   * Object does (an overdue poll is then spread, vendor-pace.ts). Off by
   * default: most tests jump the clock past many alarms and mean each to run.
   */
  spreadsOverdue = false;

  /** Runs every alarm that is due on the clock. */
  async runDueAlarms(): Promise<void> {
    for (const [id, at] of [...this.alarms]) {
      if (at <= this.clock.now()) {
        this.alarms.delete(id);
        await this.logic(id).alarm(this.spreadsOverdue ? at : undefined);
      }
    }
  }
}
