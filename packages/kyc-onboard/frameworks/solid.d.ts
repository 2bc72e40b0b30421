/**
 * `import 'kyc-onboard/solid'`: registers `<kyc-onboard>` (in a browser) and
 * declares it for Solid's JSX, with its events as `on:kyc-complete` & co.
 */
import type { JSX } from 'solid-js';
import type { KycCompleteEvent, KycErrorEvent, KycLinkEvent, KycOnboard, KycRedirectEvent, KycSubmitEvent } from '../dist/widget/index.js';
import type { KycOnboardAttributes } from './attributes.js';

export * from '../dist/widget/index.js';
export type { KycOnboardAttributes } from './attributes.js';

declare module 'solid-js' {
  namespace JSX {
    interface IntrinsicElements {
      'kyc-onboard': Omit<JSX.HTMLAttributes<KycOnboard>, 'lang'> &
        KycOnboardAttributes & {
          'on:kyc-submit'?: (event: KycSubmitEvent) => void;
          'on:kyc-link'?: (event: KycLinkEvent) => void;
          'on:kyc-redirect'?: (event: KycRedirectEvent) => void;
          'on:kyc-complete'?: (event: KycCompleteEvent) => void;
          'on:kyc-error'?: (event: KycErrorEvent) => void;
        };
    }
  }
}
