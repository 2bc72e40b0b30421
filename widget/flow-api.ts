/**
 * What the flow (flow.ts) offers the views and the run chunk (run/), as
 * interfaces in a module of their own: views and run import these types, the
 * flow implements them, and so no module imports one that imports it back.
 */
import type { html, nothing, ReactiveControllerHost, TemplateResult } from 'lit';
import type { Failure } from './api.js';
import type { emit } from './events.js';
import type { FieldErrors, Values } from './fields.js';
import type { Strings } from './i18n/en.js';
import type { readStored, writeStored } from './return-session.js';
import type { FailureContext, KycState } from './state.js';

/** What the flow needs from the element. */
export interface FlowHost extends ReactiveControllerHost, HTMLElement {
  endpoint: string;
  sms: boolean;
  customerRef: string | undefined;
  clientSecret: string | undefined;
  prefill: import('./fields.js').Prefill | undefined;
  returnUrl: string | undefined;
  turnstileSitekey: string | undefined;
  pollIntervals: number[];
  retryDelay: number;
  navigate: (url: string) => void;
  /** The strings in effect. */
  readonly _strings: Strings;
  /** The widget's language (`fr`): the phone's pages of a handoff speak it too. */
  readonly _lang: string;
  /** Focus an element of the shadow root once rendered. */
  _focus(selector: string): Promise<void>;
  /** Show the state on the host. */
  _reflect(s: KycState): void;
  /** The Turnstile token, when the challenge was solved; reset after use. */
  _bot?: { token: string; reset(): void };
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
  linkExpired: boolean;
  announce: string;
  failure?: Failure & { context: FailureContext };
  link?: { urlExpiry: string; url?: string };
  phone: string;
  claimCode: string;
  resending: boolean;
  resendWait: number;
  checkStatus: string;
  botMissing: boolean;
  notice: boolean;
  now: number;
  views: Partial<Record<KycState | 'notice', View>>;
  /** @internal The worker's field errors of the last submission, until the field changes. */
  _serverErrors: FieldErrors;
  showsForm(): boolean;
  visibleErrors(): FieldErrors;
  onInput: (e: Event) => void;
  onBlur: (e: FocusEvent) => void;
  onFocusIn: () => void;
  onSubmit: (e: Event) => void;
  focusFirstInvalid(): Promise<void>;
  set(s: KycState): void;
  useThisDevice: () => void;
  startAgain: () => void;
  sendAgain: () => void;
  continueHere: () => void;
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
