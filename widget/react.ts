/**
 * `kyc-onboard/react`: `<kyc-onboard>` as a React component, made by
 * `@lit/react`'s `createComponent`: properties are set as properties, and the
 * widget's events are props (`onKycComplete`, …) with their typed details.
 * `react` and `@lit/react` are optional peer dependencies of the package:
 * only this entry needs them. Importing it registers the element in a browser
 * and does nothing on a server (SSR): the element hydrates on the client.
 *
 * It also declares the raw tag for React's JSX (`<kyc-onboard endpoint=…>`),
 * for React 19 apps that use the element directly.
 */
import * as React from 'react';
import { createComponent, type EventName } from '@lit/react';
import type { KycOnboardAttributes } from './attributes.js';
import { TAG } from './define.js';
import type { KycCompleteEvent, KycErrorEvent, KycLinkEvent, KycRedirectEvent, KycSubmitEvent } from './events.js';
import { KycOnboard as KycOnboardElement } from './kyc-onboard.js';
import './index.js';

/** `<KycOnboard endpoint="…" clientSecret={secret} prefill={{ name: { familyName } }} onKycComplete={(e) => e.detail.resultToken} />` */
export const KycOnboard = createComponent({
  tagName: TAG,
  elementClass: KycOnboardElement,
  react: React,
  events: {
    onKycSubmit: 'kyc-submit' as EventName<KycSubmitEvent>,
    onKycLink: 'kyc-link' as EventName<KycLinkEvent>,
    onKycRedirect: 'kyc-redirect' as EventName<KycRedirectEvent>,
    onKycComplete: 'kyc-complete' as EventName<KycCompleteEvent>,
    onKycError: 'kyc-error' as EventName<KycErrorEvent>,
  },
  displayName: 'KycOnboard',
});

export type { KycCompleteEvent, KycErrorEvent, KycLinkEvent, KycRedirectEvent, KycSubmitEvent } from './events.js';
export type { Prefill } from './fields.js';
export type { KycCompleteDetail, KycErrorDetail, KycLinkDetail, KycRedirectDetail, KycSubmitDetail } from './events.js';

/** The attributes of the raw tag, as JSX writes them. */
export type KycOnboardJsxAttributes = KycOnboardAttributes;

declare module 'react' {
  // React declares its intrinsic elements in a namespace: augmenting it takes one.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'kyc-onboard': React.DetailedHTMLProps<React.HTMLAttributes<KycOnboardElement>, KycOnboardElement> & KycOnboardJsxAttributes;
    }
  }
}
