/**
 * The flow as a Lit reactive controller: the state (the one union the render
 * follows, reflected on the host), what the person typed, the checks before
 * any request, and faults. What happens after the person submits (the link
 * request, the redirect, the texted link, the return from the hosted flow,
 * polling) is the run: a chunk (`run/`) loaded on the first interaction with
 * the form, or at once on a return, so the script a page loads first holds
 * only what the form needs. The views and the run see the flow through
 * `FlowApi` (flow-api.ts); nothing outside this class touches its private
 * members.
 */
import { html, nothing, type ReactiveController } from 'lit';
import type { Failure } from './api.js';
import { emit } from './events.js';
import type { Deps, FlowApi, FlowHost, FlowLocale } from './flow-api.js';
import { FIELD_ORDER, type FieldErrors, type FieldName, type Values } from './fields.js';
import { readStored, writeStored } from './return-session.js';
import { addEnglish } from './locale.js';
import type { Run } from './run/index.js';
import type { FailureContext, KycState } from './state.js';
import type { View } from './views/view.js';

export type { Deps, FlowHost } from './flow-api.js';

/**
 * What the run chunk gets from the entry. It imports nothing from the entry's
 * modules at run time: a module both import would be split by esbuild into a
 * third file that the entry then imports before it can render.
 */
export const deps: Deps = { html, nothing, emit, readStored, writeStored };

const NETWORK = (): Failure => ({ errorCode: 'NETWORK_ERROR', status: 0, retryable: true, requestId: '', issues: [] });

export class Flow implements ReactiveController, FlowApi {
  state: KycState = 'idle';
  values: Values = {
    givenName: '',
    middleName: '',
    familyName: '',
    dobDay: '',
    dobMonth: '',
    dobYear: '',
    phoneCode: '',
    phoneNumber: '',
    consent: false,
  };
  /** True when "Text me a link" is chosen. */
  sendSMS = false;
  /** True when "Continue on my phone" (QR code, copied link) is chosen. */
  handoff = false;
  /** The handoff link's QR code, as the worker encoded it (drawn by the `handoff` view). */
  qr?: { size: number; modules: string };
  /** "Copy link" worked (said once in the status line). */
  copied = false;
  /** The worker saw the phone open the handoff link. */
  phoneOpened = false;
  /** The handoff link expired and this is a new one (said once in the status line). */
  renewed = false;
  /** The handoff link expired and no new one could be had (the `handoff` view offers starting again). */
  linkExpired = false;
  /** The status line next to the submit button. */
  announce = '';
  failure?: Failure & { context: FailureContext };
  /** The link out (its `url` only while this tab has it); `urlExpiry` on this browser's clock. */
  link?: { urlExpiry: string; url?: string };
  /** The masked number a link was texted to. */
  phone = '';
  /** The 6-digit code the texted phone asks for at the end (relay resistance). */
  claimCode = '';
  /** "Send again" of a texted link is under way (a failure then keeps the link already out). */
  resending = false;
  /** After a refused "Send again": seconds until another may go (shown in `sms-sent`). */
  resendWait = 0;
  checkStatus = '';
  outcome = '';
  /** Turnstile is on and its challenge is not solved. */
  botMissing = false;
  /** Back in a tab that has no session (a new tab, another browser): nothing to do here. */
  notice = false;
  /** Back from the hosted flow with no result in the URL (the browser's Back button): the ways on are offered at once. */
  leftFlow = false;
  /** For the texted link's countdown. */
  now = Date.now();
  /** The fields the person typed in: a `prefill` never changes them. */
  typed = new Set<string>();
  /** Views of the states only the run reaches, registered by the run chunk. */
  views: Partial<Record<KycState | 'notice' | 'left' | 'attempt', View>> = {};
  /** The last attempt ended `requires_input`: its session, for the next attempt (the run sets it). */
  attempt?: string;
  /** The calling-code table (a chunk, loaded on start): the default country code, a code's country, where texts may go. */
  codes?: typeof import('./calling-codes.js');
  /** The partner's settings, once the worker answered (`GET {endpoint}/settings`). */
  settings?: import('../worker/contract.js').SettingsAnswer;

  /** Fields found wrong at the last submission: only these show errors (never on blur, so nothing moves under the pointer). */
  private _flagged = new Set<FieldName>();
  /** The worker's field errors of the last submission, until the field changes (the run places them). */
  serverErrors: FieldErrors = {};
  /** The Turnstile glue, once the element has loaded it. */
  bot?: { token: string; reset(): void };
  private _internals?: ElementInternals;
  private _busy = false;
  /** start() has run: from then on a new `prefill` or `clientSecret` is applied as it comes. */
  private _started = false;
  private _run?: Promise<Run>;
  /** The run, once here: it follows the element in and out of the page itself (a controller of its own). */
  private _loaded?: Run;

  /** `locale`: the element's language and strings (a controller of its own, `Locale`). */
  constructor(
    readonly host: FlowHost,
    readonly locale: FlowLocale,
  ) {
    host.addController(this);
    try {
      this._internals = host.attachInternals();
    } catch {
      // Older engines: the `state` attribute is enough.
    }
  }

  hostConnected(): void {
    if (!this.host.hasAttribute('state')) this._reflect();
  }

  /** The run chunk (loaded once; a failed load is tried again next time). */
  load = (): Promise<Run> =>
    (this._run ??= import('./run/index.js').then(
      (m) => {
        addEnglish(m.english); // the English of the views the run brings
        return (this._loaded = m.install(this, deps));
      },
      (e: unknown) => {
        this._run = undefined;
        throw e;
      },
    ));

  /** After the first render: a return from the hosted flow, or a session this tab left behind (Back, reload)? */
  start(): void {
    this._started = true;
    const h = this.host;
    const v = this.values;
    // The calling codes and the partner's settings (calling-codes.ts `begin`: the country code's default); without
    // the chunk, the partner's `country-code`, else +61.
    void import('./calling-codes.js')
      .then((m) => ((this.codes = m), m.begin(this)))
      .catch(() => undefined)
      .then(() => {
        v.phoneCode ||= h.countryCode || '+61';
        h.requestUpdate();
      });
    if (/[?&]kyc_return=(success|error)\b/.test(location.search) || readStored()) {
      this.set('checking');
      void this.load().then(
        (r) => r.start(),
        () => this.offline('result'),
      );
    } else {
      if (this.host.clientSecret || this.host.prefill) void this.load().then((r) => r.start());
      // widget.shown, for the operator's funnel: once per element per page view, when the form shows (not on a return).
      // (An endpoint written with a trailing slash makes this …/api//beacon, which the worker takes too: bytes saved here.)
      // In a task of its own: not on the way to an interactive form (bench item 2).
      if (!this.host.hasAttribute('no-beacon')) setTimeout(() => navigator.sendBeacon(this.host.endpoint + '/beacon'));
    }
  }

  /**
   * `prefill` or `clientSecret` set after the start (a page or a framework
   * setting them late): the same as if they had been there. The prefill
   * fills what the person has not typed; a new client secret is resumed
   * while the form is untouched by a request.
   */
  settingsChanged(secretChanged: boolean): void {
    if (this._started && (this.host.clientSecret || this.host.prefill)) void this.load().then((r) => r.changed(secretChanged));
  }

  // ---- what is shown ---------------------------------------------------------

  showsForm(): boolean {
    const s = this.state;
    return !this.notice && (s === 'idle' || s === 'submitting' || (s === 'error' && this.failure?.context === 'submit'));
  }

  /** The errors on screen: the worker's, then the rules' for fields flagged at the last submission (the rules come with the run). */
  visibleErrors(): FieldErrors {
    const client = this._loaded?.validate(this.values) ?? {};
    const out: FieldErrors = {};
    for (const name of FIELD_ORDER) {
      const key = this.serverErrors[name] ?? (this._flagged.has(name) ? client[name] : undefined);
      if (key) out[name] = key;
    }
    return out;
  }

  smsOffered(): boolean {
    return this.host.sms && !!this.codes?.textable(this.values.phoneCode, this.settings, this.host.smsCountries);
  }

  onPhone(): boolean {
    // Either way round: a phone in landscape (844×390) is still a phone.
    return matchMedia('(pointer: coarse) and (max-width: 40rem), (pointer: coarse) and (max-height: 40rem)').matches;
  }

  // ---- input -----------------------------------------------------------------

  onInput = (e: Event): void => {
    const input = e.target as HTMLInputElement;
    const v = this.values as unknown as Record<string, string | boolean>;
    if (input.name === 'delivery') {
      if (!input.checked) return;
      this.sendSMS = input.value === 'sms';
      this.handoff = input.value === 'phone';
    } else if (input.name in v) v[input.name] = input.type === 'checkbox' ? input.checked : input.value;
    else return;
    this.typed.add(input.name);
    delete this.serverErrors[(input.name.startsWith('dob') ? 'dateOfBirth' : input.name) as FieldName];
    this.host.requestUpdate();
  };

  /** A field left: the run tidies it, once here (the request is tidied anyway). */
  onBlur = (e: FocusEvent): void => this._loaded?.blur(e.target as HTMLInputElement);

  /**
   * The person started on the form: fetch the run now, so submitting does not wait for it; in a task of its own, so
   * the focus itself is not held up by starting the import (bench item 2).
   */
  onFocusIn = (): void => {
    if (!this._run) setTimeout(() => void this.load().catch(() => undefined));
  };

  onSubmit = (e: Event): void => {
    e.preventDefault();
    void this.submit();
  };

  /** Move focus to the first field in error (or the fault's message). */
  focusFirstInvalid(): Promise<void> {
    const errs = this.visibleErrors();
    const first = FIELD_ORDER.find((n) => errs[n]);
    // The date of birth: its first wrong part, in the order shown.
    const target = first === 'dateOfBirth' ? '.dob [aria-invalid]' : first && `#${first}`;
    return this.focus(target || '#alert');
  }

  // ---- transitions -----------------------------------------------------------

  async focus(selector: string): Promise<void> {
    await this.host.updateComplete;
    this.host.renderRoot.querySelector<HTMLElement>(selector)?.focus();
  }

  set(s: KycState): void {
    this.state = s;
    this._reflect();
    this.host.requestUpdate();
  }

  /** The state on the host: attribute `state`, and a custom state (`:state(checking)`), so partners can style each. */
  private _reflect(): void {
    const s = this.state;
    this.host.setAttribute('state', s);
    try {
      this._internals?.states.clear();
      this._internals?.states.add(s);
    } catch {
      // CustomStateSet without plain identifiers (older Chromium): attribute only.
    }
  }

  /** Submit (also "Try again" and "Send again"): check the fields, then the run asks the worker for a link. */
  submit = async (): Promise<void> => {
    if (this._busy) return; // double click, Enter held down: one request
    const host = this.host;
    this._busy = true;
    try {
      let run: Run;
      if (!this._loaded) {
        // The press is answered at once, even while the run is still on its way (a slow network).
        this.announce = this.locale.t.submitting;
        host.requestUpdate();
      }
      try {
        run = this._loaded ?? (await this.load()); // usually here since the first focus in the form
      } catch {
        this.offline('submit');
        return; // the run (and with it the rules) could not be fetched
      }
      const errs = run.validate(this.values);
      this.serverErrors = {};
      this._flagged = new Set(Object.keys(errs) as FieldName[]);
      if (this._flagged.size) {
        this.announce = this.locale.t.fixFields;
        this.failure = undefined;
        this.set('idle');
        return void this.focusFirstInvalid();
      }
      this.announce = '';
      if (host.turnstileSitekey && !this.bot?.token) {
        this.botMissing = true;
        host.requestUpdate();
        return;
      }
      this.failure = undefined;
      const sendSMS = this.smsOffered() && this.sendSMS;
      const handoff = !sendSMS && this.handoff && !this.onPhone();
      this.set('submitting');
      emit(host, 'kyc-submit', { sendSMS, handoff });
      await run.submit(sendSMS, handoff);
    } finally {
      this._busy = false;
    }
  };

  /** `checking`: fetch the result with the stored session. */
  check = (): Promise<void> =>
    this.load().then(
      (r) => r.check(),
      () => this.offline('result'),
    );

  /** "Try again" of an error: the submission again, or the result again. */
  retry = (): void => {
    void (this.failure?.context === 'submit' ? this.submit() : this.check());
  };

  /** The run could not be fetched (offline): say so, and let the person try again. */
  offline(context: FailureContext): void {
    this.failure = { ...NETWORK(), context };
    this.set('error');
    emit(this.host, 'kyc-error', { errorCode: 'NETWORK_ERROR', requestId: '', retryable: true, status: 0 });
  }
}
