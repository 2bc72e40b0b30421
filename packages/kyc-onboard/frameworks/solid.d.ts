/**
 * `import 'kyc-onboard/solid'`: registers `<kyc-onboard>` (in a browser) and
 * declares it for Solid's JSX, with its events as `on:kyc-complete` & co.
 */
import type { JSX } from 'solid-js';
import type { KycOnboard } from '../dist/widget/index.js';
import type { KycOnboardAttributes, KycOnboardEventProps } from './attributes.js';

export * from '../dist/widget/index.js';
export type { KycOnboardAttributes, KycOnboardEventProps } from './attributes.js';

declare module 'solid-js' {
  namespace JSX {
    interface IntrinsicElements {
      'kyc-onboard': Omit<JSX.HTMLAttributes<KycOnboard>, 'lang'> & KycOnboardAttributes & KycOnboardEventProps<'on:'>;
    }
  }
}
