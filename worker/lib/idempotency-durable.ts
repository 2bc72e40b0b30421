/** The Durable Object behind `idempotency.ts` (one of IDEMPOTENCY_SHARDS; many keys each). */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from './env';
import { expired, IDEMPOTENCY_TTL_MS, IdempotencyRecords, type Claim, type StoredAnswer } from './idempotency';
import { systemClock } from './clock';

export class IdempotencyStore extends DurableObject<Env> {
  private readonly records = new IdempotencyRecords(
    async (k) => this.ctx.storage.get(k),
    async (k, r) => {
      await this.ctx.storage.put(k, r);
      // A sweep at most one window away keeps the shard small under steady traffic.
      if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(systemClock() + IDEMPOTENCY_TTL_MS);
    },
    async (k) => {
      await this.ctx.storage.delete(k);
    },
  );

  claim(key: string, fingerprint: string): Promise<Claim> {
    return this.records.claim(key, fingerprint);
  }
  finish(key: string, fingerprint: string, answer: StoredAnswer): Promise<void> {
    return this.records.finish(key, fingerprint, answer);
  }
  release(key: string, fingerprint?: string, verified?: boolean): Promise<void> {
    return this.records.release(key, fingerprint, verified);
  }

  /** Deletes the records whose window has passed; comes back while any remain. */
  async alarm(): Promise<void> {
    const now = systemClock();
    const stale: string[] = [];
    let left = 0;
    for (const [k, r] of await this.ctx.storage.list<{ at: number }>()) {
      if (expired(r, now)) stale.push(k);
      else left++;
    }
    for (let i = 0; i < stale.length; i += 128) await this.ctx.storage.delete(stale.slice(i, i + 128));
    if (left) await this.ctx.storage.setAlarm(now + IDEMPOTENCY_TTL_MS);
  }
}
