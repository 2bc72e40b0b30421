/**
 * The widget's events. Every one bubbles and is composed (it crosses shadow
 * roots), and is declared in `GlobalEventHandlersEventMap`, so
 * `el.addEventListener('kyc-complete', (e) => e.detail.result)` is typed.
 * None of them carries personal data.
 */
import type { VendorId, VendorResult } from '../worker/contract.js';

/** `kyc-submit`: the person submitted a valid form; the link request starts. */
export interface KycSubmitDetail {
  /** True when the person chose "Text me a link". */
  sendSMS: boolean;
  /** True when the person chose "Continue on my phone" (QR code, copied link). */
  handoff: boolean;
}

/** `kyc-link`: the worker created the onboarding link. */
export interface KycLinkDetail {
  /** The hosted onboarding flow; empty for a texted link (only the phone gets it). */
  url: string;
  /** When `url` stops working, as the worker returned it (ISO 8601). */
  urlExpiry: string;
  /** True when the link was texted to the person. */
  smsSent: boolean;
  /** `vrf_…`: names this verification in the result token and the webhooks your server receives. */
  verificationId: string;
}

/** `kyc-redirect` (cancelable): the widget is about to send the browser to `url`. */
export interface KycRedirectDetail {
  url: string;
}

/**
 * `kyc-complete`: a final check status is known. This event comes from the
 * person's own browser: never act on it alone. Send `resultToken` to your
 * server and verify it there (JWKS at `/.well-known/jwks.json`), or wait for
 * the signed webhook.
 */
export interface KycCompleteDetail {
  /** The vendor's final word, passed on untouched. Deprecated: read `result`. */
  checkStatus: string;
  /** The outcome in our words, whichever vendor: `outcome` is `verified`, `failed` or `inconclusive` (with a `reason`). */
  result?: VendorResult;
  /** The vendor the verification was made with (`idv`, `stripe`). */
  vendor?: VendorId;
  /** `vrf_…`, the verification this outcome belongs to. */
  verificationId: string;
  /** Signed result token (ES256 JWS): what your server verifies before acting. */
  resultToken: string;
  /**
   * True unless `result.outcome` is `verified`: this verification is over (its second attempt, if
   * it had one, is spent) and your server may start another one for the person, or offer another way to verify
   * (the `outcome` slot is the place to say so).
   */
  mayStartAnother: boolean;
}

/** `kyc-error`: a fault (network, refused input, service down, result still pending). */
export interface KycErrorDetail {
  /** The worker's `errorCode`, or `NETWORK_ERROR`, `RESULT_PENDING`, `NO_SESSION`. */
  errorCode: string;
  /** The worker's request id, for support; `''` when no answer came. */
  requestId: string;
  /** True when trying again may help (network, 429, 502/503/504, `RESULT_PENDING`). */
  retryable: boolean;
  /** HTTP status of the answer; 0 when there was none. */
  status: number;
}

/** Every event of the widget, by name, with its detail. */
export interface KycEventDetails {
  'kyc-submit': KycSubmitDetail;
  'kyc-link': KycLinkDetail;
  'kyc-redirect': KycRedirectDetail;
  'kyc-complete': KycCompleteDetail;
  'kyc-error': KycErrorDetail;
}

export type KycSubmitEvent = CustomEvent<KycSubmitDetail>;
export type KycLinkEvent = CustomEvent<KycLinkDetail>;
/** Cancelable: `preventDefault()` keeps the page where it is; then navigate to `detail.url` yourself. */
export type KycRedirectEvent = CustomEvent<KycRedirectDetail>;
export type KycCompleteEvent = CustomEvent<KycCompleteDetail>;
export type KycErrorEvent = CustomEvent<KycErrorDetail>;

/**
 * Dispatch a widget event from `el`: bubbling, composed; cancelable only for
 * `kyc-redirect`. Returns the event (check `defaultPrevented`).
 */
export function emit<K extends keyof KycEventDetails>(
  el: HTMLElement,
  name: K,
  detail: KycEventDetails[K],
): CustomEvent<KycEventDetails[K]> {
  const ev = new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable: name === 'kyc-redirect' });
  el.dispatchEvent(ev);
  return ev;
}

declare global {
  interface GlobalEventHandlersEventMap {
    'kyc-submit': KycSubmitEvent;
    'kyc-link': KycLinkEvent;
    'kyc-redirect': KycRedirectEvent;
    'kyc-complete': KycCompleteEvent;
    'kyc-error': KycErrorEvent;
  }
}
