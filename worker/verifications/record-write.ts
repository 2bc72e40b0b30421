/**
 * How a state change reaches the verification's Durable Object storage: the
 * record and its outbox in ONE `put` of both keys, which the storage commits
 * atomically (two awaited puts are two commits: a crash between them would
 * keep a state change without the event it owes the partner, or an event
 * for a change that never happened). After a redaction the same write
 * rewrites every kept body without the reference and the entity.
 */
import type { Verification, WebhookEvent } from './verification';
import { added, redacted, type OutboxEntry } from './webhook-outbox';

/** The part of Durable Object storage a change needs: a put of several keys (one atomic write). */
export interface AtomicPut {
  put(entries: Record<string, unknown>): Promise<void>;
}

/** What the object keeps in memory of its outbox (read once when it starts). */
export interface KeptOutbox {
  outbox: OutboxEntry[];
}

/**
 * Writes `v` and the outbox with `events` added in one put. The outbox in
 * memory is the new one before the write starts, so a call that follows
 * sees it. Returns the sequences of the events it added (or made due again).
 */
export async function writeChange(
  storage: AtomicPut,
  kept: KeptOutbox,
  v: Verification,
  events: readonly WebhookEvent[],
  now: number,
): Promise<number[]> {
  let outbox = kept.outbox;
  for (const e of events) outbox = added(outbox, e, now);
  if (v.redactedAt !== undefined) outbox = redactedChanged(outbox);
  const changed = outbox !== kept.outbox;
  kept.outbox = outbox;
  await storage.put(changed ? { v, outbox } : { v });
  const ids = new Set(events.map((e) => e.id));
  return outbox.filter((e) => ids.has(e.event.id)).map((e) => e.sequence);
}

/** The outbox after a redaction; entries whose body had nothing to forget stay the same objects. */
function redactedChanged(entries: OutboxEntry[]): OutboxEntry[] {
  const next = redacted(entries);
  return next.every((e, i) => e.event.body === entries[i]!.event.body) ? entries : next;
}
