/** The Durable Object behind `allowances.ts`: one budget (its entries that lapse), consistent across isolates. */
import { DurableObject } from 'cloudflare:workers';
import { takeFrom } from './allowances';
import type { Env } from './env';

export class LimitsStore extends DurableObject<Env> {
  private async entries(): Promise<Map<string, number>> {
    return new Map(await this.ctx.storage.list<number>());
  }

  async take(id: string, until: number, max: number): Promise<boolean> {
    const before = await this.entries();
    const after = new Map(before);
    const ok = takeFrom(after, id, until, max, Date.now());
    const gone = [...before.keys()].filter((k) => !after.has(k));
    for (let i = 0; i < gone.length; i += 128) await this.ctx.storage.delete(gone.slice(i, i + 128));
    if (ok && !before.has(id)) await this.ctx.storage.put(id, until);
    // Swept when the last entry lapses: an idle budget keeps nothing.
    if (after.size) await this.ctx.storage.setAlarm(Math.max(...after.values()));
    return ok;
  }

  async release(id: string): Promise<void> {
    await this.ctx.storage.delete(id);
  }

  async alarm(): Promise<void> {
    const now = Date.now();
    const entries = await this.entries();
    const gone = [...entries].filter(([, u]) => u <= now).map(([k]) => k);
    for (let i = 0; i < gone.length; i += 128) await this.ctx.storage.delete(gone.slice(i, i + 128));
    const left = [...entries.values()].filter((u) => u > now);
    if (left.length) await this.ctx.storage.setAlarm(Math.max(...left));
  }
}
