/**
 * Maps vendor faults onto what the browser gets (docs/api.md "Errors"): the
 * person can do nothing about our credentials or the vendor's health, so those
 * are 502/504; a vendor 400/422 ErrorObject is a 400 whose issues keep only
 * the field path, translated to our field names, never the vendor's text
 * (which may quote what was sent).
 */
import { ApiError, type Issue } from '../lib/errors';
import { VendorError } from './client';
import { ourField } from '../vendors/idv/mapping';
import { vendorBusy } from '../vendors/errors';

/** The vendor answered about another entity than the one asked about: never credited. */
export const vendorMismatch = () =>
  new ApiError(502, 'VENDOR_MISMATCH', 'The verification service answered about another check. Please try again later.');

export function vendorFault(err: unknown, route: 'link' | 'result' | 'ruok'): ApiError {
  if (!(err instanceof VendorError)) throw err;
  const f = err.fault;
  if (route === 'ruok') return new ApiError(502, 'VENDOR_ERROR', 'The verification service is not answering OK.');
  switch (f.kind) {
    case 'timeout':
      return new ApiError(504, 'VENDOR_TIMEOUT', 'The verification service did not answer in time. Please try again.');
    case 'unreachable':
    case 'bad-answer':
      return new ApiError(502, 'VENDOR_ERROR', 'The verification service is unavailable. Please try again.');
    case 'status':
      if (f.status === 401 || f.status === 403) {
        return new ApiError(502, 'VENDOR_REJECTED', 'The verification service is unavailable. Please try again later.');
      }
      if (f.status === 429) return vendorBusy(f.retryAfterSeconds);
      if ((f.status === 400 || f.status === 422) && f.error) {
        const seen = new Set<string>();
        const issues: Issue[] = [];
        for (const i of f.error.issues ?? []) {
          const loc = ourField(i.issueLocation);
          if (seen.has(loc)) continue;
          seen.add(loc);
          issues.push({ issue: 'was not accepted by the verification service', issueLocation: loc });
        }
        if (!issues.length) issues.push({ issue: 'was not accepted by the verification service', issueLocation: '<body>' });
        return new ApiError(400, 'VALIDATION_FAILED', 'The verification service did not accept these details.', issues);
      }
      return new ApiError(502, 'VENDOR_ERROR', 'The verification service is unavailable. Please try again.');
  }
}
