/** The Durable Object that keeps the sandbox's development secrets (see `dev-secrets.ts`). */
import { DurableObject } from 'cloudflare:workers';
import { generateDevSecrets, newDemoServerKeys, newWebhookSecret, type DevSecretValues } from './dev-secrets';
import type { Env } from '../lib/env';

export class DevSecrets extends DurableObject<Env> {
  async values(): Promise<DevSecretValues> {
    let v = await this.ctx.storage.get<DevSecretValues>('values');
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
}
