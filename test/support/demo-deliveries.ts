/**
 * The demo receiver's store in memory, for node tests that run the local app
 * without the demo's Durable Object: the same keep-the-last-few rule
 * (worker/demo/deliveries.ts `withDelivery`), one map per store.
 */
import { withDelivery, type DemoDeliveries, type DemoDelivery } from '../../worker/demo/deliveries';

export class MemoryDemoDeliveries implements DemoDeliveries {
  readonly byVerification = new Map<string, DemoDelivery[]>();

  async record(verificationId: string, d: DemoDelivery): Promise<void> {
    const next = withDelivery(this.byVerification.get(verificationId) ?? [], d);
    if (next) this.byVerification.set(verificationId, next);
  }

  async list(verificationId: string): Promise<DemoDelivery[]> {
    return this.byVerification.get(verificationId) ?? [];
  }
}
