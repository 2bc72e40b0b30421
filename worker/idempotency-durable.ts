/** The Durable Object behind `idempotency.ts` (one instance per scoped key). */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from './env';
import { IDEMPOTENCY_TTL_MS, IdempotencyRecords, type Claim, type StoredAnswer } from './idempotency';

export class IdempotencyStore extends DurableObject<Env> {
  private readonly records = new IdempotencyRecords(
    async (k) => this.ctx.storage.get(k),
    async (k, r) => {
      await this.ctx.storage.put(k, r);
      // Forget everything once the window has passed.
      await this.ctx.storage.setAlarm(Date.now() + IDEMPOTENCY_TTL_MS + 1000);
    },
    async (k) => void (await this.ctx.storage.delete(k)),
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
  async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
