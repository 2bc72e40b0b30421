import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { OnboardingLinkAnswer, OnboardingLinkRequest, ResultAnswer, ResultRequest } from '../worker/contract.js';
import { createLink, failure, getResult, isFailure, newKey, type Failure } from './api.js';
import { emit } from './events.js';
import {
  FIELD_ORDER,
  fieldOfIssue,
  maskPhone,
  tidyCode,
  toRequest,
  validate,
  type FieldErrors,
  type FieldName,
  type Values,
} from './fields.js';
import ar from './i18n/ar.js';
import de from './i18n/de.js';
import en, { type Strings } from './i18n/en.js';
import es from './i18n/es.js';
import fr from './i18n/fr.js';
import { styles } from './styles.js';

/** The one state machine. Reflected on the host as attribute `state` and as a custom state (`:state(checking)`). */
export type KycState = 'idle' | 'submitting' | 'redirecting' | 'sms-sent' | 'checking' | 'complete' | 'error';

const DICTS: Record<string, Strings> = { en, es, fr, de, ar };
const STORAGE_KEY = 'kyc-onboard:session';
const RETURN_PARAMS = ['kyc_return', 'checkId', 'token'];
const TURNSTILE_SRC = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';
/** How long after `urlExpiry` an SMS flow is still polled (the person may be finishing). */
const SMS_GRACE_MS = 10 * 60_000;

/** What the flow keeps in `sessionStorage` between leaving for the hosted flow and coming back. Never names or birth dates. */
interface Stored {
  session: string;
  phone?: string;
}

interface Turnstile {
  render(el: HTMLElement, opts: Record<string, unknown>): string | undefined;
  reset(id?: string): void;
}

type TextField = Exclude<FieldName, 'consent'>;
const LABEL: Record<TextField, keyof Strings> = {
  givenName: 'givenName',
  middleName: 'middleName',
  familyName: 'familyName',
  dateOfBirth: 'dateOfBirth',
  phoneCode: 'countryCode',
  phoneNumber: 'mobileNumber',
};

function readStored(): Stored | undefined {
  try {
    const s = JSON.parse(sessionStorage.getItem(STORAGE_KEY)!) as Stored | null;
    return s?.session ? s : undefined;
  } catch {
    return undefined;
  }
}

function writeStored(v?: Stored): void {
  try {
    if (v) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(v));
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage blocked (sandboxed frame, privacy mode): the return path then says "go back where you started".
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Fill `{name}` placeholders with text or templates (so numbers can be isolated with `<bdi>`). */
const fill = (s: string, vars: Record<string, unknown>): unknown[] =>
  s.split(/(\{\w+\})/).map((part) => (/^\{\w+\}$/.test(part) ? vars[part.slice(1, -1)] : part));

/** Only http(s) links may be followed or rendered. */
function safeUrl(u: string): string {
  const url = new URL(u, location.href);
  if (!/^https?:$/.test(url.protocol)) throw failure('BAD_ANSWER', 200, false);
  return url.href;
}

/**
 * An identity-verification onboarding form. It collects name, date of birth,
 * mobile number and consent, asks the worker for a link to the hosted
 * verification flow, and either sends the browser there or texts the link; when
 * the person comes back it fetches the result and shows a final state.
 *
 * @summary Embeddable identity-verification onboarding form.
 * @tag kyc-onboard
 *
 * @fires {KycSubmitEvent} kyc-submit - A valid form was submitted. `detail: { sendSMS }`.
 * @fires {KycLinkEvent} kyc-link - The onboarding link was created. `detail: { url, urlExpiry, smsSent, verificationId }`.
 * @fires {KycRedirectEvent} kyc-redirect - Cancelable. The browser is about to go to `detail.url`; `preventDefault()` keeps the page where it is.
 * @fires {KycCompleteEvent} kyc-complete - A final check status is known. `detail: { checkStatus, verificationId, resultToken }`. The browser's word only: verify `resultToken` on your server (or use the webhook) before acting.
 * @fires {KycErrorEvent} kyc-error - A fault. `detail: { errorCode, requestId, retryable, status }`.
 *
 * @slot consent - The consent text; it names the consent checkbox. Default: a short English/translated sentence.
 * @slot turnstile - Filled by the widget itself with the Cloudflare Turnstile challenge when `turnstile-sitekey` is set.
 *
 * @csspart base - The wrapper around everything (carries `dir` and `lang`).
 * @csspart form - The `<form>`.
 * @csspart field - Each field's wrapper (label, input, error).
 * @csspart label - Each field's label.
 * @csspart hint - The "Optional" hint of optional fields.
 * @csspart input - Each text / date / tel input.
 * @csspart checkbox - The consent checkbox.
 * @csspart consent - The consent field's wrapper.
 * @csspart choice - The "Continue on this device" / "Text me a link" radio group.
 * @csspart field-error - Each field's error message.
 * @csspart button - Every button.
 * @csspart submit - The submit button "Verify my identity".
 * @csspart secondary - Secondary buttons ("Use this device instead").
 * @csspart status - The live status line next to the submit button.
 * @csspart message - The message panel of the redirecting, sms-sent, checking and complete states.
 * @csspart complete - The message panel of the complete state.
 * @csspart alert - The error message of the error state.
 * @csspart link - The "Continue to verification" link while redirecting.
 *
 * @cssprop [--kyc-color-primary=#1d4ed8] - Buttons, links, focus accents.
 * @cssprop [--kyc-color-on-primary=#ffffff] - Text on primary buttons.
 * @cssprop [--kyc-color-background=#ffffff] - Background of the widget and its inputs.
 * @cssprop [--kyc-color-text=#1a1c23] - Text colour.
 * @cssprop [--kyc-color-muted=#545a66] - Hints.
 * @cssprop [--kyc-color-border=#7b8190] - Input borders.
 * @cssprop [--kyc-color-error=#b42318] - Errors.
 * @cssprop [--kyc-color-success=#067647] - The success accent.
 * @cssprop [--kyc-color-focus=#1d4ed8] - Focus rings.
 * @cssprop [--kyc-radius=0.5rem] - Corner radius.
 * @cssprop [--kyc-spacing=1rem] - Base spacing.
 * @cssprop [--kyc-font-family=system-ui] - Font.
 * @cssprop [--kyc-font-size=1rem] - Base font size.
 * @cssprop [--kyc-max-width=32rem] - Maximum width.
 */
export class KycOnboard extends LitElement {
  static override styles = styles;

  static override properties = {
    endpoint: {},
    sms: { type: Boolean },
    lang: {},
    customerRef: { attribute: 'customer-ref' },
    returnUrl: { attribute: 'return-url' },
    turnstileSitekey: { attribute: 'turnstile-sitekey' },
    countryCode: { attribute: 'country-code' },
    strings: { attribute: false },
    pollIntervals: { attribute: false },
    retryDelay: { attribute: false },
  };

  /** Base URL of the worker's browser API. */
  declare endpoint: string;
  /** Offer "Text me a link" next to "Continue on this device". */
  declare sms: boolean;
  /** Opaque reference of the partner, sent as `customerRef` (≤ 100 characters). */
  declare customerRef: string | undefined;
  /** Where the hosted flow sends the person back. Default: this page (`location.origin + location.pathname`). */
  declare returnUrl: string | undefined;
  /** Cloudflare Turnstile site key; when set (only then) Turnstile is loaded and its token sent. */
  declare turnstileSitekey: string | undefined;
  /** Initial country code of the mobile number. */
  declare countryCode: string;
  /** Overrides of any translated string (property only). */
  declare strings: Partial<Strings> | undefined;
  /**
   * Waits (ms) between result polls. While `checking`, the widget polls once,
   * then once after each wait; still `CHECKING` after the last one is the
   * `RESULT_PENDING` error. While `sms-sent`, the last wait repeats until the
   * link has expired (plus a grace period).
   */
  declare pollIntervals: number[];
  /** Wait (ms) before the one automatic retry of a link request after a network fault or 502/503/504. */
  declare retryDelay: number;

  /** How the widget leaves the page for the hosted flow. Replace it (e.g. in tests, or to open a popup). */
  navigate: (url: string) => void = (url) => location.assign(url);

  private _state?: KycState;
  private _internals?: ElementInternals;
  private _values: Values;
  private _touched = new Set<FieldName>();
  private _submitted = false;
  private _serverErrors: FieldErrors = {};
  private _sendSMS = false;
  private _busy = false;
  private _announce = '';
  private _failure?: Failure & { context: 'submit' | 'result' };
  private _link?: OnboardingLinkAnswer;
  private _phone = '';
  private _checkStatus = '';
  private _returnParams: Omit<ResultRequest, 'session'> = {};
  private _run = 0;
  private _now = Date.now();
  private _ticker?: ReturnType<typeof setInterval>;
  private _tsEl?: HTMLElement;
  private _tsId?: string;
  private _tsToken = '';
  private _tsMissing = false;

  constructor() {
    super();
    this.endpoint = '/api';
    this.sms = false;
    this.countryCode = '+61';
    this.pollIntervals = [1000, 1000, 2000, 3000, 5000, 8000, 10000, 10000, 10000, 10000];
    this.retryDelay = 1000;
    this._values = { givenName: '', middleName: '', familyName: '', dateOfBirth: '', phoneCode: '', phoneNumber: '', consent: false };
    try {
      this._internals = this.attachInternals();
    } catch {
      // Older engines: the `state` attribute is enough.
    }
  }

  /** The current state (read-only; also the host's `state` attribute). */
  get state(): KycState {
    return this._state ?? 'idle';
  }

  /** The final check status once `complete`, else `''`. */
  get checkStatus(): string {
    return this._checkStatus;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (!this._state) this._setState('idle');
    else if (this._state === 'checking' || this._state === 'sms-sent') this._resume();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this._run++;
    this._tick(false);
  }

  protected override firstUpdated(): void {
    // After the first render (and after the host had a chance to add listeners).
    void Promise.resolve().then(() => this._readReturn());
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('countryCode') && !this._values.phoneCode) this._values.phoneCode = this.countryCode;
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('turnstileSitekey') && this.turnstileSitekey) this._loadTurnstile();
    // Constraint validation mirrors what is shown (the form is `novalidate`).
    const errs = this._visibleErrors();
    for (const name of FIELD_ORDER) {
      const input = this.renderRoot.querySelector<HTMLInputElement>(`#${name}`);
      const key = errs[name];
      input?.setCustomValidity(key ? this._t()[key] : '');
    }
  }

  // ---- rendering -----------------------------------------------------------

  private _t(): Strings {
    return { ...(DICTS[this._lang()] ?? en), ...this.strings };
  }

  /** `lang` attribute, then `<html lang>`, then the browser; the first of them we have a dictionary for. */
  private _lang(): string {
    const code = (this.lang || document.documentElement.lang || navigator.language || 'en').toLowerCase().split('-')[0]!;
    return DICTS[code] ? code : 'en';
  }

  private _locale(): string {
    return this.lang || document.documentElement.lang || navigator.language || 'en';
  }

  override render(): TemplateResult {
    const t = this._t();
    const form = this._showsForm();
    const lang = this._lang();
    const rtl = /^(ar|he|fa|ur)\b/i.test(this._locale());
    return html`<div part="base" dir=${rtl ? 'rtl' : 'ltr'} lang=${lang}>${form ? this._form(t) : this._panel(t)}</div>`;
  }

  private _showsForm(): boolean {
    const s = this.state;
    return s === 'idle' || s === 'submitting' || (s === 'error' && this._failure?.context === 'submit');
  }

  private _visibleErrors(): FieldErrors {
    const client = validate(this._values);
    const out: FieldErrors = {};
    for (const name of FIELD_ORDER) {
      const key = this._serverErrors[name] ?? (this._submitted || this._touched.has(name) ? client[name] : undefined);
      if (key) out[name] = key;
    }
    return out;
  }

  private _field(
    t: Strings,
    name: TextField,
    errs: FieldErrors,
    o: { type?: string; autocomplete: string; optional?: boolean; inputmode?: string },
  ): TemplateResult {
    const err = errs[name];
    const describedBy = [o.optional ? `${name}-hint` : '', err ? `${name}-error` : ''].filter(Boolean).join(' ');
    return html`<div class="field" part="field">
      <label for=${name} part="label">${t[LABEL[name]]}</label>
      ${o.optional ? html`<span id="${name}-hint" class="hint" part="hint">${t.optional}</span>` : nothing}
      <input
        id=${name}
        name=${name}
        part="input"
        type=${o.type ?? 'text'}
        autocomplete=${o.autocomplete}
        inputmode=${o.inputmode ?? nothing}
        ?required=${!o.optional}
        .value=${this._values[name]}
        aria-invalid=${err ? 'true' : nothing}
        aria-describedby=${describedBy || nothing}
      />
      <div id="${name}-error" class="error" part="field-error" aria-live="polite">${err ? t[err] : ''}</div>
    </div>`;
  }

  private _form(t: Strings): TemplateResult {
    const busy = this.state === 'submitting';
    const errs = this._visibleErrors();
    const consentErr = errs.consent;
    return html`<form part="form" novalidate @submit=${this._onSubmit} @input=${this._onInput} @change=${this._onInput} @focusout=${this._onBlur}>
      ${this.state === 'error' ? this._alert(t) : nothing}
      ${this._field(t, 'givenName', errs, { autocomplete: 'given-name', optional: true })}
      ${this._field(t, 'middleName', errs, { autocomplete: 'additional-name', optional: true })}
      ${this._field(t, 'familyName', errs, { autocomplete: 'family-name' })}
      ${this._field(t, 'dateOfBirth', errs, { type: 'date', autocomplete: 'bday' })}
      <div class="row">
        ${this._field(t, 'phoneCode', errs, { autocomplete: 'tel-country-code', inputmode: 'tel' })}
        ${this._field(t, 'phoneNumber', errs, { type: 'tel', autocomplete: 'tel-national' })}
      </div>
      ${this.sms
        ? html`<fieldset part="choice">
            <legend>${t.deliveryLegend}</legend>
            <div class="check">
              <input id="here" type="radio" name="delivery" value="here" .checked=${!this._sendSMS} />
              <label for="here">${t.continueHere}</label>
            </div>
            <div class="check">
              <input id="sms" type="radio" name="delivery" value="sms" .checked=${this._sendSMS} />
              <label for="sms">${t.textMe}</label>
            </div>
          </fieldset>`
        : nothing}
      <div class="field" part="field consent">
        <div class="check">
          <input
            id="consent"
            name="consent"
            type="checkbox"
            part="checkbox"
            required
            .checked=${this._values.consent}
            aria-invalid=${consentErr ? 'true' : nothing}
            aria-describedby=${consentErr ? 'consent-error' : nothing}
          />
          <label for="consent" part="label"><slot name="consent">${t.consent}</slot></label>
        </div>
        <div id="consent-error" class="error" part="field-error" aria-live="polite">${consentErr ? t[consentErr] : ''}</div>
      </div>
      ${this.turnstileSitekey
        ? html`<slot name="turnstile"></slot>
            <div class="error" aria-live="polite">${this._tsMissing ? t.errTurnstile : ''}</div>`
        : nothing}
      <div class="actions">
        <button type="submit" part="button submit" aria-disabled=${busy ? 'true' : nothing}>${t.submit}</button>
        <span class="hint" part="status" role="status">${busy ? t.submitting : this._announce}</span>
      </div>
    </form>`;
  }

  private _errorText(t: Strings, f: Failure): string {
    const byCode: Record<string, string> = { NETWORK_ERROR: t.errNetwork, RESULT_PENDING: t.errPending, NO_SESSION: t.noSession };
    const s = f.status;
    return (
      byCode[f.errorCode] ??
      (s > 501 ? t.errUnavailable // 502, 503, 504: the vendor or the worker's upstream
        : s === 429 ? t.errRateLimited
        : s === 401 ? t.errSession
        : s === 403 || s === 500 ? t.errSetup // origin not allowed, worker misconfigured
        : s === 400 && f.issues.length ? t.fixFields
        : t.errGeneric)
    );
  }

  private _alert(t: Strings): TemplateResult {
    const f = this._failure!;
    let action: TemplateResult | typeof nothing = nothing;
    if (f.errorCode === 'NO_SESSION') action = nothing;
    else if (f.status === 401 || (f.context === 'result' && !f.retryable)) {
      action = html`<button type="button" part="button" @click=${this._startAgain}>${t.startAgain}</button>`;
    } else if (f.retryable) {
      action = html`<button type="button" part="button" @click=${f.context === 'submit' ? this._submit : this._check}>${t.retry}</button>`;
    }
    return html`<div class="alert panel" part="alert" role="alert" tabindex="-1" id="alert">
      <p>${this._errorText(t, f)}</p>
      ${action === nothing ? nothing : html`<div class="actions">${action}</div>`}
    </div>`;
  }

  private _panel(t: Strings): TemplateResult {
    switch (this.state) {
      case 'redirecting':
        return html`<div class="panel" part="message">
          <p role="status">${t.redirecting}</p>
          ${this._link ? html`<p><a part="link" href=${this._link.url}>${t.continueLink}</a></p>` : nothing}
        </div>`;
      case 'sms-sent': {
        const expiry = Date.parse(this._link?.urlExpiry ?? '');
        const left = Math.max(0, Math.round((expiry - this._now) / 1000));
        const expired = !Number.isNaN(expiry) && left <= 0;
        const time = Number.isNaN(expiry) ? '' : new Intl.DateTimeFormat(this._locale(), { timeStyle: 'short' }).format(expiry);
        const mmss = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
        return html`<div class="panel" part="message">
          <p role="status" tabindex="-1" id="focus">${fill(t.smsSent, { phone: html`<bdi dir="ltr">${this._phone}</bdi>` })}</p>
          ${expired
            ? html`<p>${t.smsExpired}</p>`
            : time
              ? html`<p>${fill(t.smsExpires, { time })} <span aria-hidden="true">(${mmss})</span></p>`
              : nothing}
          <div class="actions">
            <button type="button" part="button" @click=${this._sendAgain}>${t.sendAgain}</button>
            ${expired
              ? nothing
              : html`<button type="button" class="secondary" part="button secondary" @click=${this._useThisDevice}>${t.useThisDevice}</button>`}
          </div>
        </div>`;
      }
      case 'checking':
        return html`<div class="panel" part="message" role="status">
          <p>${t.checking}</p>
          <progress aria-label=${t.checking}></progress>
        </div>`;
      case 'complete': {
        const ok = this._checkStatus.startsWith('CHECKED_SUCCESS');
        return html`<div class="panel success" part="message complete" role="status">
          <p>${ok ? t.completeSuccess : t.completeOther}</p>
        </div>`;
      }
      default:
        return this._alert(t);
    }
  }

  // ---- input ----------------------------------------------------------------

  private _onInput(e: Event): void {
    const input = e.target as HTMLInputElement;
    if (input.name === 'delivery') {
      this._sendSMS = input.value === 'sms' && input.checked;
    } else if (input.name === 'consent') {
      this._values.consent = input.checked;
      this._touched.add('consent');
    } else if (input.name in this._values) {
      (this._values as unknown as Record<string, string>)[input.name] = input.value;
    } else return;
    delete this._serverErrors[input.name as FieldName];
    this.requestUpdate();
  }

  private _onBlur(e: FocusEvent): void {
    const input = e.target as HTMLInputElement;
    const name = input.name as FieldName;
    // (Also fires when the form is replaced by a panel while a field has focus: nothing to do then.)
    if (!FIELD_ORDER.includes(name) || !this._showsForm()) return;
    if (name === 'phoneCode') input.value = this._values.phoneCode = tidyCode(input.value) || input.value;
    this._touched.add(name);
    this.requestUpdate();
  }

  private _onSubmit(e: Event): void {
    e.preventDefault();
    void this._submit();
  }

  private async _focus(selector: string): Promise<void> {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>(selector)?.focus();
  }

  private _focusFirstInvalid(): Promise<void> {
    const errs = this._visibleErrors();
    const first = FIELD_ORDER.find((n) => errs[n]);
    return this._focus(first ? `#${first}` : '#alert');
  }

  // ---- the flow -------------------------------------------------------------

  private _setState(s: KycState): void {
    this._state = s;
    this.setAttribute('state', s);
    const states = this._internals?.states;
    if (states) {
      try {
        states.clear();
        states.add(s);
      } catch {
        // CustomStateSet without plain identifiers (older Chromium): attribute only.
      }
    }
    this._tick(s === 'sms-sent');
    this.requestUpdate();
  }

  private _tick(on: boolean): void {
    clearInterval(this._ticker);
    this._ticker = undefined;
    if (on) {
      this._ticker = setInterval(() => {
        this._now = Date.now();
        this.requestUpdate();
      }, 1000);
    }
  }

  /** Submit (also "Try again" and "Send again"): validate, then ask the worker for a link. */
  private async _submit(): Promise<void> {
    if (this._busy) return; // double click, Enter held down: one request
    const t = this._t();
    const errs = validate(this._values);
    this._serverErrors = {};
    this._submitted = true;
    if (Object.keys(errs).length) {
      this._announce = t.fixFields;
      if (this.state !== 'idle') this._setState('idle');
      this.requestUpdate();
      return this._focusFirstInvalid();
    }
    this._announce = '';
    if (this.turnstileSitekey && !this._tsToken) {
      this._tsMissing = true;
      this.requestUpdate();
      return;
    }
    this._busy = true;
    this._run++; // stop any SMS polling ("Send again")
    this._failure = undefined;
    this._returnParams = {}; // a new link: an earlier return's checkId/token no longer apply
    const sendSMS = this.sms && this._sendSMS;
    this._setState('submitting');
    emit(this, 'kyc-submit', { sendSMS });

    const body: OnboardingLinkRequest = {
      ...toRequest(this._values),
      returnUrl: this.returnUrl || location.origin + location.pathname,
    };
    if (sendSMS) body.sendSMS = true;
    if (this.customerRef) body.customerRef = this.customerRef;
    if (this._tsToken) body.turnstileToken = this._tsToken;
    const key = newKey(); // one per submission; reused by the automatic retry below

    try {
      let answer: OnboardingLinkAnswer;
      try {
        answer = await createLink(this.endpoint, body, key);
      } catch (e) {
        if (!isFailure(e) || !(e.status === 0 || e.status >= 502)) throw e;
        await sleep(this.retryDelay);
        answer = await createLink(this.endpoint, body, key);
      }
      const url = safeUrl(answer.url);
      this._link = { ...answer, url };
      this._phone = maskPhone(body.phone.code, body.phone.number);
      writeStored(answer.smsSent ? { session: answer.session, phone: this._phone } : { session: answer.session });
      emit(this, 'kyc-link', { url, urlExpiry: answer.urlExpiry, smsSent: !!answer.smsSent, verificationId: answer.verificationId });
      if (answer.smsSent) {
        this._setState('sms-sent');
        void this._focus('#focus');
        void this._poll(answer.session, true);
      } else {
        this._redirect(url);
      }
    } catch (e) {
      this._fail(e, 'submit');
    } finally {
      this._busy = false;
      if (this._tsToken) {
        this._tsToken = ''; // Turnstile tokens are single-use
        (window as unknown as { turnstile?: Turnstile }).turnstile?.reset(this._tsId);
      }
    }
  }

  private _redirect(url: string): void {
    this._run++;
    this._setState('redirecting');
    if (!emit(this, 'kyc-redirect', { url }).defaultPrevented) this.navigate(url);
  }

  private _sendAgain(): void {
    this._sendSMS = true;
    void this._submit();
  }

  private _useThisDevice(): void {
    if (this._link) this._redirect(this._link.url);
  }

  private _startAgain(): void {
    writeStored();
    this._run++;
    this._failure = undefined;
    this._setState('idle');
  }

  private _fail(e: unknown, context: 'submit' | 'result'): void {
    const f = isFailure(e) ? e : failure('UNKNOWN', 0, false);
    this._failure = { ...f, context };
    this._run++;
    if (context === 'submit') {
      for (const issue of f.issues) {
        const hit = fieldOfIssue(issue.issueLocation);
        if (hit) this._serverErrors[hit[0]] = hit[1];
      }
    }
    this._setState('error');
    emit(this, 'kyc-error', { errorCode: f.errorCode, requestId: f.requestId, retryable: f.retryable, status: f.status });
    if (context === 'submit') void this._focusFirstInvalid();
  }

  private _complete(answer: ResultAnswer): void {
    writeStored();
    this._run++;
    this._checkStatus = answer.checkStatus;
    this._setState('complete');
    emit(this, 'kyc-complete', { checkStatus: answer.checkStatus, verificationId: answer.verificationId, resultToken: answer.resultToken! });
  }

  /** Back from the hosted flow (`?kyc_return=success|error&checkId=…&token=…`)? */
  private _readReturn(): void {
    const url = new URL(location.href);
    const r = url.searchParams.get('kyc_return');
    if (r !== 'success' && r !== 'error') return;
    const checkId = url.searchParams.get('checkId');
    const token = url.searchParams.get('token');
    this._returnParams = {};
    if (checkId) this._returnParams.checkId = checkId;
    if (token) this._returnParams.token = token;
    for (const p of RETURN_PARAMS) url.searchParams.delete(p);
    try {
      history.replaceState(history.state, '', url.href);
    } catch {
      // Sandboxed or opaque-origin documents may refuse; the flow goes on.
    }
    void this._check();
  }

  /** `checking`: fetch the result with the stored session, polling while `CHECKING`. */
  private async _check(): Promise<void> {
    const stored = readStored();
    if (!stored) return this._fail(failure('NO_SESSION', 0, false), 'result');
    this._failure = undefined;
    this._setState('checking');
    return this._poll(stored.session, false);
  }

  private _resume(): void {
    this._tick(this._state === 'sms-sent');
    const stored = readStored();
    if (stored) void this._poll(stored.session, this._state === 'sms-sent');
  }

  private async _poll(session: string, sms: boolean): Promise<void> {
    const run = ++this._run;
    const expiry = Date.parse(this._link?.urlExpiry ?? '');
    const until = (Number.isNaN(expiry) ? Date.now() + 20 * 60_000 : expiry) + SMS_GRACE_MS;
    for (let i = 0; ; i++) {
      try {
        const answer = await getResult(this.endpoint, { session, ...this._returnParams });
        if (run !== this._run) return;
        if (answer.checkStatus && answer.checkStatus !== 'CHECKING') return this._complete(answer);
      } catch (e) {
        if (run !== this._run) return;
        // While the link is out on the phone, a hiccup is not the person's problem: keep polling
        // unless the session itself is gone.
        if (!sms || (isFailure(e) && e.status === 401)) return this._fail(e, 'result');
      }
      const waits = this.pollIntervals; // read each time: a change applies to the next wait
      const wait = sms ? waits[Math.min(i, waits.length - 1)] : waits[i];
      if (wait === undefined || (sms && Date.now() > until)) {
        if (!sms) this._fail(failure('RESULT_PENDING', 0, true), 'result');
        return;
      }
      await sleep(wait);
      if (run !== this._run) return;
    }
  }

  // ---- Turnstile (only when `turnstile-sitekey` is set) ---------------------

  private _loadTurnstile(): void {
    if (this._tsEl) return;
    const el = document.createElement('div');
    el.slot = 'turnstile';
    this.append(el);
    this._tsEl = el;
    const w = window as unknown as { turnstile?: Turnstile };
    const render = () => {
      this._tsId =
        w.turnstile?.render(el, {
          sitekey: this.turnstileSitekey,
          language: this._lang(),
          callback: (token: string) => {
            this._tsToken = token;
            this._tsMissing = false;
            this.requestUpdate();
          },
          'expired-callback': () => {
            this._tsToken = '';
          },
        }) ?? undefined;
    };
    if (w.turnstile) return render();
    let script = document.querySelector<HTMLScriptElement>('script[data-kyc-turnstile]');
    if (!script) {
      script = document.createElement('script');
      script.src = TURNSTILE_SRC;
      script.async = true;
      script.dataset.kycTurnstile = '';
      document.head.append(script);
    }
    script.addEventListener('load', render, { once: true });
  }
}
