/**
 * The parameters a vendor's hosted flow appends to the return URL (idv: its
 * check id and token; Stripe: none), as the product carries them: an opaque,
 * bounded map the browser brings back (`/api/result`'s `hint`, the phone's
 * return page). Nothing outside the vendor's folder reads a key of it: a
 * return only makes the worker ask the vendor sooner (docs/decisions.md).
 */
import type { VendorId } from './adapter';
import { IDV_RETURN_KEYS } from './idv/return';

/** Each vendor's return keys (a new vendor adds its own, as it adds itself to VENDOR_IDS). */
export const RETURN_KEYS: Readonly<Record<VendorId, readonly string[]>> = { idv: IDV_RETURN_KEYS, stripe: [] };

/** A key of the map: a plain parameter name. */
export const RETURN_KEY = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;
/** At most this many keys, each value at most this long (idv's check id and link token are short ids). */
export const MAX_RETURN_KEYS = 4;
export const MAX_RETURN_VALUE = 200;

/** The vendor's return parameters found by `get` (a query's), the overlong and empty ones left out. */
export function returnParamsOf(vendor: VendorId, get: (key: string) => string | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  for (const key of RETURN_KEYS[vendor]) {
    const value = get(key);
    if (value && value.length <= MAX_RETURN_VALUE) params[key] = value;
  }
  return params;
}

/** The link answer's `returnKeys` for a link on this device with `vendor` (none: absent). */
export const returnKeysOf = (vendor: VendorId): { returnKeys?: string[] } =>
  RETURN_KEYS[vendor].length ? { returnKeys: [...RETURN_KEYS[vendor]] } : {};
