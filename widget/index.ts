/**
 * The npm entry (and the script-tag bundle's entry). In a browser it registers
 * `<kyc-onboard>` (idempotently); on a server (no `window`) it defines nothing
 * and throws nothing, so it is safe to import during server-side rendering.
 * Import `kyc-onboard/kyc-onboard.js` for the class without registration.
 */
import { defineKycOnboard } from './define.js';

export { KycOnboard, type KycState, type Prefill } from './kyc-onboard.js';
export { defineKycOnboard, TAG } from './define.js';
export * from './events.js';
export type { Strings } from './i18n/en.js';

if (typeof window !== 'undefined' && typeof document !== 'undefined') defineKycOnboard();
