/** The attributes of `<kyc-onboard>` as a template writes them, and its events as JSX props (see custom-elements.json). */
export type { KycOnboardAttributes, KycOnboardEventProps } from '../dist/widget/attributes.js';
