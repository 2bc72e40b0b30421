/**
 * What the flow (flow.ts) offers the views and the run chunk (run/), as
 * interfaces in a module of their own: views and run import these types, the
 * flow implements them, and so no module imports one that imports it back.
 * Every member here is meant for those modules: none is private to the flow.
 */
import type { html, nothing, ReactiveControllerHost, TemplateResult } from 'lit';
import type { Failure } from './api.js';
import type { emit } from './events.js';
import type { FieldErrors, Values } from './fields.js';
import type { Strings } from './i18n/en.js';
import type { readStored, writeStored } from './return-session.js';
import type { FailureContext, KycState } from './state.js';

/** What the flow needs from the element: its public properties, and Lit's `renderRoot` to focus in. */
export interface FlowHost extends ReactiveControllerHost, HTMLElement {
  endpoint: string;
  sms: boolean;
  lang: string;
  privacyUrl: string | undefined;
  countryCode: string | undefined;
  smsCountries: string | undefined;
  customerRef: string | undefined;
  clientSecret: string | undefined;
  prefill: import('./fields.js').Prefill | undefined;
  returnUrl: string | undefined;
  turnstileSitekey: string | undefined;
  pollIntervals: number[];
  retryDelay: number;
  navigate: (url: string) => void;
  readonly renderRoot: HTMLElement | DocumentFragment;
}

/** The element's language, as the flow needs it (locale.ts's `Locale`). */
export interface FlowLocale {
  /** The strings in effect. */
  readonly t: Strings;
  /** The dictionary asked for (`fr`): the phone's pages of a handoff and a texted link speak it too. */
  readonly code: string;
}

/**
 * What the run chunk gets from the entry (flow.ts's `deps`). It imports
 * nothing from the entry's modules at run time: a module both import would be
 * split by esbuild into a third file that the entry then imports before it
 * can render.
 */
export interface Deps {
  html: typeof html;
  nothing: typeof nothing;
  emit: typeof emit;
  readStored: typeof readStored;
  writeStored: typeof writeStored;
}

/** The flow as the views and the run see it (flow.ts documents each member). */
export interface FlowApi {
  readonly host: FlowHost;
  readonly locale: FlowLocale;
  /** The Turnstile glue (`turnstile-sitekey`), once loaded: its token when the challenge was solved; reset after use. */
  bot?: { token: string; reset(): void };
  state: KycState;
  values: Values;
  /** The fields the person typed in. */
  readonly typed: ReadonlySet<string>;
  sendSMS: boolean;
  handoff: boolean;
  qr?: { size: number; modules: string };
  copied: boolean;
  phoneOpened: boolean;
  renewed: boolean;
  /** The QR code on screen replaced before it expired: the phone opened the last one (`used`), or the person asked (`asked`). */
  newCode?: 'used' | 'asked';
  /** "Show a new code" failed: why (the code on screen stays). */
  newCodeFault?: Failure;
  linkExpired: boolean;
  announce: string;
  failure?: Failure & { context: FailureContext };
  link?: { urlExpiry: string; url?: string };
  phone: string;
  claimCode: string;
  resending: boolean;
  resendWait: number;
  /** When "Send again" last sent a text (its confirmation says so). */
  sentAt?: number;
  /** `checking` is slow: when the result should be here by (the polling's bound). */
  slowBy?: number;
  checkStatus: string;
  /** The outcome in our words once complete (`verified`, `failed`, `inconclusive`): what the view decides from. */
  outcome: string;
  botMissing: boolean;
  notice: boolean;
  /** The last attempt ended `requires_input`: its session, for the next attempt (the form shows what to check). */
  attempt?: string;
  /** Back from the hosted flow with no result in the URL: "Continue the check" or "Change my details". */
  leftFlow: boolean;
  now: number;
  views: Partial<Record<KycState | 'notice' | 'left' | 'attempt', View>>;
  /** The calling-code table, once its chunk is here. */
  codes?: typeof import('./calling-codes.js');
  /** The partner's settings (`GET {endpoint}/settings`), once here: its minimum age, and whether and where texts may go. */
  settings?: import('../worker/contract.js').SettingsAnswer;
  /** A field error's text where the run says more than the key's string (a refused number names its country). */
  say?: (c: ViewContext, key: import('./fields.js').ErrorKey) => string;
  /** "Text me a link" is offered: `sms`, and the country code is one texting may go to. */
  smsOffered(): boolean;
  /** On a phone (a coarse pointer and a narrow screen): "Continue on my phone" is not offered. */
  onPhone(): boolean;
  /** The worker's field errors of the last submission, until the field changes (the run places them). */
  serverErrors: FieldErrors;
  showsForm(): boolean;
  visibleErrors(): FieldErrors;
  onInput: (e: Event) => void;
  onBlur: (e: FocusEvent) => void;
  onFocusIn: () => void;
  onSubmit: (e: Event) => void;
  focusFirstInvalid(): Promise<void>;
  /** Focus an element of the shadow root once rendered. */
  focus(selector: string): Promise<void>;
  /** The one way to a new state: shown on the host (attribute and custom state), then rendered. */
  set(s: KycState): void;
  retry: () => void;
  submit: () => Promise<void>;
}

/** What every view renders from. */
export interface ViewContext {
  flow: FlowApi;
  t: Strings;
  /** The language tag dates and times are written in (`fr-CA`). */
  tag: string;
  /** The language of the strings shown (`t`): their plurals follow its rules. */
  lang: string;
  /** The element's `sms` attribute: offer "Text me a link". */
  sms: boolean;
  /** Turnstile is on (`turnstile-sitekey`). */
  turnstile: boolean;
}

/** A view: one state's content. */
export type View = (c: ViewContext) => TemplateResult;
