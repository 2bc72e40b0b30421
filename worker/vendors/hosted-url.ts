/**
 * The vendor's hosted-flow URL, kept or fetched fresh (docs/vendors.md "The
 * hosted URL"). A vendor whose URL is a one-time credential of the person
 * (Stripe's `url`: short-lived, single use, never to be stored or logged)
 * has `openUrl`: the record keeps only the flow's origin (for the handoff
 * page's `form-action`), and the URL is asked for again each time the person
 * opens the link (a resume, the same link again, the phone's "Continue").
 * A vendor without `openUrl` (idv) has a link that stays valid until it
 * expires: it is kept as before.
 */
import type { VendorAdapter, VendorRef } from './adapter';
import type { Verification } from '../verifications/verification';

/** Whether the vendor's URL is fetched when the person opens it (never kept). */
export const fetchedAtOpen = (adapter: Pick<VendorAdapter, 'openUrl'>) => adapter.openUrl !== undefined;

/** What the record may keep of `url`: all of it, or for a vendor with `openUrl` its origin only ('' stays ''). */
export function keptUrl(adapter: Pick<VendorAdapter, 'openUrl'>, url: string): string {
  if (!fetchedAtOpen(adapter) || !url) return url;
  return new URL(url).origin;
}

/** The reference to ask `openUrl` with: the verification's current subject (stripe: the attempt's session). */
export const openRef = (
  adapter: Pick<VendorAdapter, 'id'>,
  v: Pick<Verification, 'entityId' | 'linkCreatedAt' | 'createdAt'>,
): VendorRef => ({
  vendor: adapter.id,
  subject: v.entityId!,
  linkedAt: v.linkCreatedAt ?? v.createdAt,
});

/**
 * Where to send the person now: a fresh URL from the vendor when it has
 * `openUrl` (undefined once it offers none: the session is over), else the
 * kept one. Vendor faults are the adapter's errors, for the caller to answer.
 */
export async function urlToOpen(
  adapter: VendorAdapter,
  v: Pick<Verification, 'entityId' | 'linkCreatedAt' | 'createdAt'>,
  kept: string,
): Promise<string | undefined> {
  if (!adapter.openUrl || v.entityId === undefined) return kept;
  return adapter.openUrl(openRef(adapter, v));
}
