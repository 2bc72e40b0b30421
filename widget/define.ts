import { KycOnboard } from './kyc-onboard.js';

/** The element's tag. */
export const TAG = 'kyc-onboard';

/**
 * Registers `<kyc-onboard>`. Idempotent: when the tag is already defined (a
 * second copy of the widget on the page, or a second call) it does nothing.
 * Does nothing where there is no custom-element registry.
 */
export function defineKycOnboard(): void {
  if (typeof customElements !== 'undefined' && !customElements.get(TAG)) {
    customElements.define(TAG, KycOnboard);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'kyc-onboard': KycOnboard;
  }
}
