/**
 * `import 'kyc-onboard/vue'`: registers `<kyc-onboard>` (in a browser) and
 * declares it among Vue's `GlobalComponents`, so `vue-tsc` checks its
 * attributes and its events (`@kyc-complete="(e) => e.detail.checkStatus"`).
 * Vue must also treat the tag as a custom element at runtime:
 * `vue({ template: { compilerOptions: { isCustomElement: (tag) => tag === 'kyc-onboard' } } })`.
 */
import type { DefineComponent } from 'vue';
import type { KycCompleteEvent, KycErrorEvent, KycLinkEvent, KycRedirectEvent, KycSubmitEvent, Prefill } from '../dist/widget/index.js';

export * from '../dist/widget/index.js';

/** Props as Vue sees them (camelCase; templates may write them kebab-case), and the events as `on…` handlers. */
export interface KycOnboardVueProps {
  endpoint?: string;
  sms?: boolean;
  lang?: string;
  customerRef?: string;
  /** The client secret of a verification your server started; bind it as a property (`:clientSecret` / `.prop`). */
  clientSecret?: string;
  /** Values to fill the form with (property only: `:prefill="…"`). */
  prefill?: Prefill;
  returnUrl?: string;
  turnstileSitekey?: string;
  countryCode?: string;
  theme?: 'light' | 'dark';
  onKycSubmit?: (event: KycSubmitEvent) => void;
  onKycLink?: (event: KycLinkEvent) => void;
  onKycRedirect?: (event: KycRedirectEvent) => void;
  onKycComplete?: (event: KycCompleteEvent) => void;
  onKycError?: (event: KycErrorEvent) => void;
}

declare module 'vue' {
  interface GlobalComponents {
    'kyc-onboard': DefineComponent<KycOnboardVueProps>;
  }
}
