/**
 * Who may read the sandbox's outbox of texted links: only the browser that
 * made the link. The demo page keeps a random `key` (never sent anywhere but
 * here) and sets the widget's `customer-ref` to `outboxRef(key)`, its SHA-256;
 * `GET /sandbox/outbox?key=` lists the messages of that reference. Knowing a
 * reference (it travels to the vendor, the webhooks, the demo's screen) reads
 * nothing: the key is not in it, and a reference no key hashes to (any real
 * partner's) has no reader at all.
 */
export const OUTBOX_KEY = /^[A-Za-z0-9_-]{16,128}$/;

export async function outboxRef(key: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`kyc-sandbox-outbox ${key}`)));
  return 'demo-' + [...d.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
