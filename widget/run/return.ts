/** The return from the hosted flow: the parameters it appends to the return URL, and the default return URL. */
import type { ResultRequest } from '../../worker/contract.js';

/** How the hosted flow ended; the vendor's own parameters beside it are named by the link answer (`returnKeys`). */
const RETURNED = 'kyc_return';

/** The page's own address without the return's parameters (`keys`: the vendor's) and the fragment: the default `return-url`. */
export function pageUrl(keys: readonly string[] = []): string {
  const url = new URL(location.href);
  for (const p of [RETURNED, ...keys]) url.searchParams.delete(p);
  url.hash = '';
  return url.href;
}

/**
 * Back from the hosted flow (`?kyc_return=success|error`, and the vendor's `keys`)? Returns what to send with the
 * result request (the vendor's parameters as an opaque `hint`), and takes them out of the address bar (a reload or a
 * shared link must not replay them).
 */
export function takeReturn(keys: readonly string[] = []): Omit<ResultRequest, 'session'> | undefined {
  const url = new URL(location.href);
  const r = url.searchParams.get(RETURNED);
  if (r !== 'success' && r !== 'error') return undefined;
  const params: Omit<ResultRequest, 'session'> = { returned: r };
  const hint: Record<string, string> = {};
  // As many and as long as the worker takes (vendors/return-params.ts); anything else would only cost the poll a 400.
  for (const k of keys.slice(0, 4)) {
    const v = url.searchParams.get(k)?.trim();
    if (v && v.length <= 200) hint[k] = v;
  }
  if (Object.keys(hint).length) params.hint = hint;
  try {
    history.replaceState(history.state, '', pageUrl(keys) + url.hash);
  } catch {
    // Sandboxed or opaque-origin documents may refuse; the flow goes on.
  }
  return params;
}
