/**
 * Vendor faults in our words, whichever vendor: every adapter throws a
 * `VendorError` whose `fault` says what went wrong (no answer in time, no
 * connection, an answer we cannot read, an error status), and the routes map
 * it to the browser's and the partner's server's ErrorObject here
 * (docs/api.md "Errors"): the person can do nothing about our credentials or
 * the vendor's health, so those are 502/504; a vendor's 400/422 about a field
 * we can name is a 400 naming our field, never repeating the vendor's text.
 */
import { ApiError, type Issue } from '../lib/errors';
import { CapabilityUnavailableError, VendorMismatchError, type Capability, type VendorId, type VendorOutcome } from './adapter';

export type { VendorOutcome };

export type VendorFault =
  | { kind: 'timeout' }
  | { kind: 'unreachable' }
  /** Answered, but not with what the vendor's reference says (non-JSON, truncated, wrong shape, redirect). */
  | { kind: 'bad-answer'; status: number }
  /**
   * Answered with an error status. `error` is the idv ErrorObject when it sent
   * one; `fields` are the fields of our request the vendor refused, in our
   * names (the adapter translates), when it said.
   */
  | {
      kind: 'status';
      status: number;
      error?: { errorCode?: string; errorMsg?: string; issues?: { issue?: string; issueLocation?: string }[] };
      fields?: string[];
      /** The vendor's `Retry-After`, in seconds, when it sent one (a 429 or 503): nobody asks it again before. */
      retryAfterSeconds?: number;
    };

export class VendorError extends Error {
  constructor(readonly fault: VendorFault) {
    super(`vendor ${fault.kind}${'status' in fault ? ` ${fault.status}` : ''}`);
    this.name = 'VendorError';
  }
  get status(): number | undefined {
    return 'status' in this.fault ? this.fault.status : undefined;
  }
}

/** A call's outcome from its fault (none = ok). A 2xx we cannot read, or a redirect, counts as the vendor's failure (5xx). */
export function vendorOutcome(fault: VendorFault | undefined): VendorOutcome {
  if (!fault) return 'ok';
  if (fault.kind === 'timeout') return 'timeout';
  if (fault.kind === 'unreachable') return 'network';
  return fault.status >= 400 && fault.status < 500 ? '4xx' : '5xx';
}

/**
 * Whether a fault is the vendor's (failover may try the next vendor): no
 * answer in time, no connection, an unreadable answer, a 5xx or a 429. Never
 * a 4xx about our request or our credentials.
 */
export function isVendorOutage(err: unknown): boolean {
  if (!(err instanceof VendorError)) return false;
  const f = err.fault;
  if (f.kind !== 'status') return true;
  return f.status >= 500 || f.status === 429;
}

/** When the vendor said nothing about how long to wait on its 429. */
export const VENDOR_BUSY_DEFAULT_SECONDS = 30;

/**
 * The vendor is limiting our calls (its 429): 503 with its `Retry-After` (or
 * VENDOR_BUSY_DEFAULT_SECONDS), so the person is told when to try again; not
 * a 502, which says the vendor is broken.
 */
export const vendorBusy = (retryAfterSeconds: number | undefined) =>
  new ApiError(503, 'VENDOR_BUSY', 'The verification service is busy. Please try again shortly.', [], {
    'Retry-After': String(Math.max(1, retryAfterSeconds ?? VENDOR_BUSY_DEFAULT_SECONDS)),
  });

/** The vendor answered about another subject than the one asked about: never credited. */
export const vendorMismatchError = () =>
  new ApiError(502, 'VENDOR_MISMATCH', 'The verification service answered about another check. Please try again later.');

/** 501 CAPABILITY_UNAVAILABLE naming the vendor and what it cannot do. */
export const capabilityUnavailable = (vendor: VendorId, capability: Capability) =>
  new ApiError(501, 'CAPABILITY_UNAVAILABLE', `The verification vendor (${vendor}) has no ${capability}.`, [
    { issue: `is not offered by ${vendor}`, issueLocation: capability },
  ]);

/** Whether `err` is one an adapter throws (a fault, a mismatch, a capability it lacks): `vendorApiError` answers it. */
export const isAdapterError = (err: unknown): boolean =>
  err instanceof VendorError || err instanceof VendorMismatchError || err instanceof CapabilityUnavailableError;

/**
 * Our ErrorObject for anything an adapter threw: vendor faults, a mismatch,
 * a capability the vendor lacks. Anything else is not the vendor's and is
 * thrown on (app.onError answers it). On `health` every fault is 502.
 */
export function vendorApiError(err: unknown, route: 'link' | 'result' | 'health' = 'link'): ApiError {
  if (err instanceof CapabilityUnavailableError) return capabilityUnavailable(err.vendor, err.capability);
  if (err instanceof VendorMismatchError) return vendorMismatchError();
  if (!(err instanceof VendorError)) throw err;
  const f = err.fault;
  if (route === 'health') return new ApiError(502, 'VENDOR_ERROR', 'The verification service is not answering OK.');
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
      if ((f.status === 400 || f.status === 422) && f.fields?.length) {
        const issues: Issue[] = [...new Set(f.fields)].map((issueLocation) => ({
          issue: 'was not accepted by the verification service',
          issueLocation,
        }));
        return new ApiError(400, 'VALIDATION_FAILED', 'The verification service did not accept these details.', issues);
      }
      return new ApiError(502, 'VENDOR_ERROR', 'The verification service is unavailable. Please try again.');
  }
}
