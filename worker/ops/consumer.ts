/**
 * The events queue's consumer (same worker): each batch is counted into the
 * hourly rollups in D1 in one transaction, exactly once per event id (a
 * redelivered message adds nothing); a batch that cannot be written is
 * retried whole. Messages that are not events of ours are dropped with a log
 * line. The scheduled clean-up (Cron Trigger) forgets what is past its
 * retention.
 */
import { bindingIfAny, type Env } from '../lib/env';
import type { OpsMessage } from './events';
import { cleanUp, record } from './store';
import { errorName } from '../lib/errors';
import { log } from '../lib/log';
import { isVendorId } from '../vendors/adapter';

const TYPES = new Set([
  'widget.shown',
  'link.created',
  'link.refused',
  'link.failover',
  'handoff.opened',
  'flow.returned',
  'verification.final',
  'verification.expired',
  'verification.canceled',
  'vendor.call',
  'webhook.attempt',
]);

const isVendor = (v: unknown): boolean => typeof v === 'string' && isVendorId(v);

/** Whether a queue body is one of our events (the producer is ours, but a queue is a boundary). */
export function isOpsMessage(b: unknown): b is OpsMessage {
  if (!b || typeof b !== 'object') return false;
  const m = b as Record<string, unknown>;
  if (typeof m.id !== 'string' || typeof m.at !== 'number' || typeof m.partnerId !== 'string' || !TYPES.has(String(m.type))) return false;
  switch (m.type) {
    case 'link.refused':
      return typeof m.errorCode === 'string' && Array.isArray(m.fields) && m.fields.every((f) => typeof f === 'string');
    case 'verification.final':
      return typeof m.checkStatus === 'string' && typeof m.secondsSinceLink === 'number' && (m.vendor === undefined || isVendor(m.vendor));
    case 'vendor.call':
      return (
        typeof m.operation === 'string' &&
        typeof m.outcome === 'string' &&
        typeof m.ms === 'number' &&
        (m.vendor === undefined || isVendor(m.vendor))
      );
    case 'webhook.attempt':
      return (
        typeof m.verificationId === 'string' && typeof m.attempt === 'number' && typeof m.ms === 'number' && typeof m.result === 'string'
      );
    case 'link.created':
      return typeof m.channel === 'string' && (m.vendor === undefined || isVendor(m.vendor));
    case 'link.failover':
      return isVendor(m.from) && isVendor(m.to) && typeof m.cause === 'string';
    case 'flow.returned':
      return typeof m.outcome === 'string';
    case 'verification.expired':
      return typeof m.reason === 'string';
    default:
      return true;
  }
}

export const EVENTS_QUEUE_NAME = 'kyc-ops-events';

export async function consumeOpsBatch(batch: MessageBatch, env: Env): Promise<void> {
  if (batch.queue.endsWith('-dlq')) {
    // Events the consumer could not write after every retry: lost to the counts, said in the log.
    log.error('ops_events_lost', { count: batch.messages.length });
    batch.ackAll();
    return;
  }
  const events: OpsMessage[] = [];
  let dropped = 0;
  for (const m of batch.messages) {
    if (isOpsMessage(m.body)) events.push(m.body);
    else dropped++;
  }
  if (dropped) log.error('ops_event_malformed', { count: dropped });
  const db = bindingIfAny(env, 'DB');
  if (!db) {
    log.error('ops_no_database', { count: events.length });
    batch.retryAll({ delaySeconds: 60 });
    return;
  }
  try {
    await record(db, events);
    batch.ackAll();
  } catch (err) {
    log.error('ops_rollup_failed', { count: events.length, error: errorName(err) });
    batch.retryAll({ delaySeconds: 10 });
  }
}

/** The Cron Trigger: retention. `scheduledTime` is now (tests pass a later one). */
export async function scheduledCleanUp(env: Env, scheduledTime: number): Promise<void> {
  const db = bindingIfAny(env, 'DB');
  if (!db) return;
  const removed = await cleanUp(db, scheduledTime);
  log.info('ops_clean_up', { ...removed });
}
