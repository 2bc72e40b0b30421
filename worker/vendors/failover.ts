/**
 * A first link, with failover before start (docs/vendors.md "Failover"): the
 * partner's first vendor makes it, unless that vendor faults (a timeout, no
 * connection, an unreadable answer, a 5xx or a 429) or is known down
 * (health.ts); then, for a partner with `failover: before_start`, its next
 * vendor makes it, once. Never on a 4xx (our request or our credentials: the
 * next vendor would refuse the same), never for a link whose subject is the
 * first vendor's (a returning person's entity), never to a vendor that cannot
 * make the link asked for (a texted link with a vendor that does not text).
 * Renewals and next attempts never come here: a verification keeps the vendor
 * of its first link.
 */
import type { FailoverMode } from '../partners/partner';
import type { FailoverCause } from '../ops/events';
import type { VendorAdapter, VendorId } from './adapter';
import { isVendorOutage, VendorError } from './errors';
import { knownDown, markDown, markUp } from './health';
import { makeLink, type LinkAsk, type LinkSettings, type MadeLink } from './link';

export interface FailoverLink {
  /** The vendor that made the link: the verification's for its whole life. */
  vendor: VendorId;
  link: MadeLink;
  /** Set when the link is the next vendor's: whose it would have been, and why not. */
  failover?: { from: VendorId; cause: FailoverCause };
}

export interface FailoverAsk {
  /** The partner's vendors in priority order (`vendorsOf`). */
  vendors: readonly VendorId[];
  /** `failoverOf`: `before_start` only with a second vendor. */
  failover: FailoverMode;
  adapter: (vendor: VendorId) => VendorAdapter;
  settings: LinkSettings;
  ask: LinkAsk;
  now: () => number;
  /** Told before the next vendor is asked (the route keeps the answer for the Idempotency-Key, whatever it is). */
  onFailover?: () => void;
}

/** Why the first vendor was passed over, in the operator's words. */
function causeOf(err: unknown): FailoverCause {
  const f = err instanceof VendorError ? err.fault : undefined;
  if (f?.kind === 'timeout') return 'timeout';
  if (f?.kind === 'unreachable') return 'network';
  return f?.kind === 'status' && f.status === 429 ? 'busy' : 'error';
}

/** The link from `vendor`, and what it says of the vendor's health. */
async function linkFrom(vendor: VendorId, adapter: VendorAdapter, a: FailoverAsk): Promise<MadeLink> {
  try {
    const link = await makeLink(adapter, a.settings, a.ask);
    markUp(vendor);
    return link;
  } catch (err) {
    if (isVendorOutage(err)) markDown(vendor, a.now());
    else if (err instanceof VendorError) markUp(vendor); // it answered: up, whatever it thought of the request
    throw err;
  }
}

/** `vendor`'s adapter, or undefined when the deployment cannot reach it (no settings for it): no fallback, and the first vendor still asked. */
function usable(a: FailoverAsk, vendor: VendorId): VendorAdapter | undefined {
  try {
    return a.adapter(vendor);
  } catch (err) {
    if (err instanceof VendorError) return undefined;
    throw err;
  }
}

/** The partner's link: its first vendor's, or on a vendor fault and with failover, its next vendor's. */
export async function linkWithFailover(a: FailoverAsk): Promise<FailoverLink> {
  const [first, next] = a.vendors;
  if (!first) throw new Error('a partner has at least one vendor');
  const nextAdapter = a.failover === 'before_start' && next !== undefined && a.ask.subject === undefined ? usable(a, next) : undefined;
  const fallback = nextAdapter && (a.ask.handoff !== 'sms' || nextAdapter.capabilities.sms) ? nextAdapter : undefined;
  const failOver = async (cause: FailoverCause): Promise<FailoverLink> => {
    a.onFailover?.();
    return { vendor: next!, link: await linkFrom(next!, fallback!, a), failover: { from: first, cause } };
  };
  // Known down (and the next one is not): not asked, no timeout paid.
  if (fallback && knownDown(first, a.now()) && !knownDown(next!, a.now())) return failOver('known-down');
  try {
    return { vendor: first, link: await linkFrom(first, a.adapter(first), a) };
  } catch (err) {
    if (!fallback || !isVendorOutage(err)) throw err;
    return failOver(causeOf(err));
  }
}
