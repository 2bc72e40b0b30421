/**
 * The demo's Durable Object (DEV_SECRETS, local stack only): the development
 * secrets (see `dev-secrets.ts`) and what the demo receiver accepted
 * (see `deliveries.ts`).
 */
import { DurableObject } from 'cloudflare:workers';
import { generateDevSecrets, newDemoServerKeys, newWebhookSecret, type DemoSecretValues } from './dev-secrets';
import { VERIFICATIONS_KEPT, withDelivery, type DemoDelivery } from './deliveries';
import type { Env } from '../lib/env';

const DELIVERIES = 'deliveries:';

export class DevSecrets extends DurableObject<Env> {
  async values(): Promise<DemoSecretValues> {
    let v = await this.ctx.storage.get<DemoSecretValues>('values');
    // Values stored before a secret was added lack it.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    if (!v || !v.demoWebhookSecret || !v.demoServerKeys) {
      // Values kept from before a secret was added keep what they had.
      v = { ...(await generateDevSecrets()), ...v };
      if (!v.demoWebhookSecret) v.demoWebhookSecret = newWebhookSecret();
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
      if (!v.demoServerKeys) v.demoServerKeys = newDemoServerKeys();
      await this.ctx.storage.put('values', v);
    }
    return v;
  }

  async recordDelivery(verificationId: string, d: DemoDelivery): Promise<void> {
    const key = DELIVERIES + verificationId;
    const known = await this.ctx.storage.get<DemoDelivery[]>(key);
    const next = withDelivery(known ?? [], d);
    if (!next) return;
    await this.ctx.storage.put(key, next);
    if (known) return;
    // A new verification: beyond the kept number, the oldest go (ids sort by creation time).
    const keys = [...(await this.ctx.storage.list({ prefix: DELIVERIES })).keys()];
    if (keys.length > VERIFICATIONS_KEPT) await this.ctx.storage.delete(keys.slice(0, Math.min(128, keys.length - VERIFICATIONS_KEPT)));
  }

  async deliveries(verificationId: string): Promise<DemoDelivery[]> {
    return (await this.ctx.storage.get<DemoDelivery[]>(DELIVERIES + verificationId)) ?? [];
  }
}
