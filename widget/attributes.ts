/**
 * The attributes of `<kyc-onboard>` as a template writes them, for the JSX
 * typings of React, Preact and Solid and for Vue's (one list; the element's
 * JSDoc in `kyc-onboard.ts` and custom-elements.json say the same).
 */
import type { KycEventDetails } from './events.js';

export interface KycOnboardAttributes {
  /** Base URL of the worker's browser API. Default `/api`. */
  endpoint?: string;
  /** Offer "Text me a link". */
  sms?: boolean;
  /** Language: `en`, `es`, `fr`, `de`, `ar` (region subtags are fine). */
  lang?: string;
  /** Your reference for this person, sent as `customerRef` (≤ 100 characters). Ignored with `client-secret`. */
  'customer-ref'?: string;
  /** The client secret of a verification your server started (`POST /v1/verifications`); the same secret again resumes it. */
  'client-secret'?: string;
  /** Where the hosted flow sends the person back (must be on the worker's ALLOWED_ORIGINS). */
  'return-url'?: string;
  /** Cloudflare Turnstile site key: only then is Turnstile loaded. */
  'turnstile-sitekey'?: string;
  /** Don't send the one cookieless `widget.shown` beacon (`{endpoint}/beacon`) the operator's console counts. */
  'no-beacon'?: boolean;
  /** Initial country code of the mobile number. Default `+61`. */
  'country-code'?: string;
  /** Pins the colour scheme; without it the widget follows `prefers-color-scheme`. */
  theme?: 'light' | 'dark';
}

/** The widget's events as JSX props named `${Prefix}kyc-…` (Preact: `on`, Solid: `on:`), with their typed details. */
export type KycOnboardEventProps<Prefix extends string> = {
  [K in keyof KycEventDetails as `${Prefix}${K}`]?: (event: CustomEvent<KycEventDetails[K]>) => void;
};
