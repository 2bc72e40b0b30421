/** The attributes of `<kyc-onboard>` as a template writes them (see custom-elements.json). */
export type { KycOnboardAttributes } from '../dist/widget/attributes.js';
