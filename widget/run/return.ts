/** The return from the hosted flow: the parameters it appends to the return URL, and the default return URL. */
import type { ResultRequest } from '../../worker/contract.js';

/** What the hosted flow appends to the return URL; the widget removes them from the address bar. */
const RETURN_PARAMS = ['kyc_return', 'checkId', 'token'];

/** The page's own address without the widget's return parameters and the fragment: the default `return-url`. */
export function pageUrl(): string {
  const url = new URL(location.href);
  for (const p of RETURN_PARAMS) url.searchParams.delete(p);
  url.hash = '';
  return url.href;
}

/**
 * Back from the hosted flow (`?kyc_return=success|error&checkId=…&token=…`)?
 * Returns what to send with the result request, and takes the parameters out
 * of the address bar (a reload or a shared link must not replay them).
 */
export function takeReturn(): Omit<ResultRequest, 'session'> | undefined {
  const url = new URL(location.href);
  const r = url.searchParams.get('kyc_return');
  if (r !== 'success' && r !== 'error') return undefined;
  const params: Omit<ResultRequest, 'session'> = { returned: r };
  const checkId = url.searchParams.get('checkId');
  const token = url.searchParams.get('token');
  if (checkId) params.checkId = checkId;
  if (token) params.token = token;
  try {
    history.replaceState(history.state, '', pageUrl() + url.hash);
  } catch {
    // Sandboxed or opaque-origin documents may refuse; the flow goes on.
  }
  return params;
}
