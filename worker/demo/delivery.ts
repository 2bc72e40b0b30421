/**
 * One delivery the demo receiver accepted, as the worker keeps it
 * (deliveries.ts) and the demo page shows it. No imports: the browser's demo
 * page reads this type too.
 */
export interface DemoDelivery {
  webhookId: string;
  type: string;
  /** The event's `data.result.outcome`, in our words (a final event). */
  outcome?: string;
  /** The event's `data.result.vendor`. */
  vendor?: string;
  reason?: string;
  /** The event's `data.livemode` (false while the sandbox is the vendor). */
  livemode?: boolean;
  /** The receiver checked the signature (the demo receiver records nothing it could not verify). */
  signature: 'verified';
  receivedAt: number;
}
