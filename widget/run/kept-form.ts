/**
 * The form's values across the trip to the hosted flow in this tab (the page
 * loads afresh on the way back): encrypted with a fresh AES-GCM 256 key, only
 * the ciphertext and its IV in `sessionStorage` beside the session; the raw
 * key goes to the worker with the link request and comes back only to the
 * session's holder while the verification is open (or waits for the next
 * attempt). So this tab's storage holds nothing readable without the worker,
 * and the worker never sees the values. Consent is never kept: it is given
 * again. Every failure (no WebCrypto, storage blocked, no key, a garbled
 * ciphertext) means an empty form, never an error.
 */
import type { Values } from '../fields.js';

const STORAGE_KEY = 'kyc-onboard:form';

/** The fields kept: what the link request sent (names, date of birth, country code, number). */
const KEPT = ['givenName', 'middleName', 'familyName', 'dobDay', 'dobMonth', 'dobYear', 'phoneCode', 'phoneNumber'] as const;
type Kept = (typeof KEPT)[number];

const toB64 = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const fromB64 = (s: string) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

/** Whether this tab keeps values (opened only with the worker's key). */
export function hasKeptForm(): boolean {
  try {
    return sessionStorage.getItem(STORAGE_KEY) !== null;
  } catch {
    return false;
  }
}

/** Forget the kept values (the verification ended, or another one starts). */
export function dropForm(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage blocked: nothing was kept.
  }
}

/** Encrypt and keep `values` in this tab; the raw key (base64url) for the link request, or undefined when it could not. */
export async function keepForm(values: Values): Promise<string | undefined> {
  dropForm();
  try {
    const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt']);
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const plain = new TextEncoder().encode(JSON.stringify(Object.fromEntries(KEPT.map((k) => [k, values[k]]))));
    const data = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plain);
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ iv: toB64(iv), data: toB64(data) }));
    return toB64(await crypto.subtle.exportKey('raw', key));
  } catch {
    dropForm();
    return undefined;
  }
}

/** The kept values, opened with the worker's `formKey` and then forgotten here; undefined on any failure. */
export async function takeForm(formKey: string | undefined): Promise<Partial<Pick<Values, Kept>> | undefined> {
  try {
    const kept = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as { iv: string; data: string } | null;
    if (!kept || !formKey) return undefined;
    const key = await crypto.subtle.importKey('raw', fromB64(formKey), 'AES-GCM', false, ['decrypt']);
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromB64(kept.iv) }, key, fromB64(kept.data));
    const parsed = JSON.parse(new TextDecoder().decode(plain)) as Record<string, unknown>;
    const out: Partial<Pick<Values, Kept>> = {};
    for (const k of KEPT) if (typeof parsed[k] === 'string') out[k] = parsed[k];
    dropForm();
    return out;
  } catch {
    dropForm(); // garbled, or not this key's: it can never be opened
    return undefined;
  }
}
