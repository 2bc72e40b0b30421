/**
 * `import 'kyc-onboard/preact'`: registers `<kyc-onboard>` (in a browser) and
 * declares it for Preact's JSX, with its events as `onkyc-complete` & co.
 * (Preact listens to a custom element's event named after `on`). Written for
 * Preact 11's types (tested with a fresh app).
 */
import type { HTMLAttributes } from 'preact';
import type { KycOnboard } from '../dist/widget/index.js';
import type { KycOnboardAttributes, KycOnboardEventProps } from './attributes.js';

export * from '../dist/widget/index.js';
export type { KycOnboardAttributes, KycOnboardEventProps } from './attributes.js';

declare module 'preact' {
  namespace JSX {
    interface IntrinsicElements {
      'kyc-onboard': Omit<HTMLAttributes<KycOnboard>, 'lang'> & KycOnboardAttributes & KycOnboardEventProps<'on'>;
    }
  }
}
