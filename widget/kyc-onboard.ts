import { LitElement, html, type PropertyValues, type TemplateResult } from 'lit';
import { Flow } from './flow.js';
import type { Strings } from './i18n/en.js';
import { Locale } from './locale.js';
import type { KycState } from './state.js';
import type { Prefill } from './fields.js';
import { styles } from './styles.js';
import { view } from './views/index.js';

export type { KycState } from './state.js';
export type { Prefill } from './fields.js';

/**
 * An identity-verification onboarding form. It collects name, date of birth,
 * mobile number and consent, asks the worker for a link to the hosted
 * verification flow, and either sends the browser there, shows a QR code and a
 * link for the person's phone ("Continue on my phone"), or texts the link; when
 * the person comes back, or finishes on the phone, it shows a final state.
 *
 * Settings from the worker, not attributes: on start the element reads the
 * partner's settings (`GET {endpoint}/settings`): `minAge`, the youngest person
 * the partner may verify (a younger date of birth is refused before any request,
 * "Minimum age to continue: 18." in the widget's language; the worker refuses it
 * too); `defaultCountry`, the country code's default; and whether and where a
 * link may be texted (`sms`, `smsCountries`). Set them on the worker
 * (`MIN_AGE`, `DEFAULT_COUNTRY`, `SMS_ALLOWED_COUNTRIES`, or the partner
 * registry: docs/configuration.md, docs/partners.md).
 *
 * @summary Embeddable identity-verification onboarding form.
 * @tag kyc-onboard
 *
 * @fires {KycSubmitEvent} kyc-submit - A valid form was submitted. `detail: { sendSMS, handoff }`.
 * @fires {KycLinkEvent} kyc-link - The onboarding link was created. `detail: { url, urlExpiry, smsSent, verificationId }`.
 * @fires {KycRedirectEvent} kyc-redirect - Cancelable. The browser is about to go to `detail.url`; `preventDefault()` keeps the page where it is.
 * @fires {KycCompleteEvent} kyc-complete - A final check status is known. `detail: { result, vendor, checkStatus, verificationId, resultToken, mayStartAnother }` (`result.outcome`: `verified`, `failed` or `inconclusive`; `checkStatus` is deprecated; `mayStartAnother`: true unless verified: your server may start another verification). The browser's word only: verify `resultToken` on your server (or use the webhook) before acting.
 * @fires {KycErrorEvent} kyc-error - A fault. `detail: { errorCode, requestId, retryable, status }`.
 *
 * @attr {boolean} no-beacon - Don't send the one `widget.shown` beacon (`navigator.sendBeacon` to `{endpoint}/beacon` when the form is first shown: no cookie, no body, nothing about the person or the browser; the operator's console counts page views per partner with it).
 *
 * @slot consent - The consent text; it names the consent checkbox. Default: a short English/translated sentence.
 * @slot outcome-verified - Under the final state's message when the person is verified: your next step for them.
 * @slot outcome-failed - Under the final state's message when they could not be verified online: your next step for them (contact, branch, another way to verify).
 * @slot outcome - Either final message's next step, where the slot of that kind of outcome is empty (a fallback for both).
 * @slot turnstile - Filled by the widget itself with the Cloudflare Turnstile challenge when `turnstile-sitekey` is set.
 *
 * @csspart base - The wrapper around everything (carries `dir` and `lang`).
 * @csspart intro - The line above the form: what the check needs, how long it takes, who checks, and the privacy link.
 * @csspart form - The `<form>`.
 * @csspart field - Each field's wrapper (label, input, error).
 * @csspart label - Each field's label.
 * @csspart hint - The "Optional" hint of the middle name.
 * @csspart input - Each text / date / tel input.
 * @csspart checkbox - The consent checkbox.
 * @csspart consent - The consent field's wrapper.
 * @csspart choice - The "Continue on this device" / "Continue on my phone" / "Text me a link" radio group ("Continue on my phone" is not offered on a phone; "Text me a link" only for a country code of `sms-countries`).
 * @csspart field-error - Each field's error message.
 * @csspart button - Every button (among them "Continue the check", offered with "Change my details" when the person came back from the hosted flow without a result).
 * @csspart submit - The submit button "Verify my identity".
 * @csspart secondary - Secondary buttons ("Show a new code", "Use this device instead", "Change my number", "Change my details").
 * @csspart status - The live status line next to the submit button.
 * @csspart message - The message panel of the redirecting, handoff, sms-sent, checking and complete states (and of a return without a session).
 * @csspart complete - The message panel of the complete state.
 * @csspart attempt - "Check your details and try again" above the form, when an attempt found no match and another is allowed: the form keeps its values, and its next submission is the same verification's next attempt (same `verificationId`).
 * @csspart alert - The error message of the error state.
 * @csspart link - The "Continue to verification" link while redirecting.
 * @csspart qr - The QR code of the link for the phone (handoff).
 * @csspart code - The 6-digit code a texted link's phone asks for (sms-sent).
 *
 * @cssprop [--kyc-color-primary=#1d4ed8] - Buttons, links, focus accents.
 * @cssprop [--kyc-color-on-primary=#ffffff] - Text on primary buttons.
 * @cssprop [--kyc-color-background=#ffffff] - Background of the widget and its inputs.
 * @cssprop [--kyc-color-text=#1a1c23] - Text colour.
 * @cssprop [--kyc-color-muted=#545a66] - Hints.
 * @cssprop [--kyc-color-border=#7b8190] - Input borders.
 * @cssprop [--kyc-color-error=#b42318] - Errors.
 * @cssprop [--kyc-color-success=#067647] - The accent of a clear success (other outcomes are neutral).
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
    clientSecret: { attribute: 'client-secret' },
    prefill: { attribute: false },
    returnUrl: { attribute: 'return-url' },
    turnstileSitekey: { attribute: 'turnstile-sitekey' },
    countryCode: { attribute: 'country-code' },
    smsCountries: { attribute: 'sms-countries' },
    privacyUrl: { attribute: 'privacy-url' },
    strings: { attribute: false },
    pollIntervals: { attribute: false },
    retryDelay: { attribute: false },
  };

  /** Base URL of the worker's browser API. */
  declare endpoint: string;
  /** Offer "Text me a link" next to "Continue on this device". */
  declare sms: boolean;
  /**
   * The language, a BCP 47 tag (`fr`, `pt-BR`, `zh-TW`). Unset: the page's `<html lang>` (followed when the page
   * changes it), then the browser's. 48 languages (docs/embedding.md#languages; `pt-PT` → `pt`, `zh-CN` → `zh-Hans`,
   * `zh-TW`/`zh-HK` → `zh-Hant`, `no`/`nn` → `nb`, `tl` → `fil`); any other is English. Sets the text, the direction
   * (right to left for `ar`, `he`, `fa`, `ur`), the order of the date-of-birth fields, and the language of the phone's
   * pages. Each language's words are a file loaded on first use; override any of them with `strings`.
   */
  declare lang: string;
  /** Opaque reference of the partner, sent as `customerRef` (≤ 100 characters). Ignored (with a console warning) when `client-secret` is set. */
  declare customerRef: string | undefined;
  /**
   * The client secret of a verification your server started
   * (`POST /v1/verifications`): the link is made for it, with your server's
   * `customerRef`. The same secret again resumes it: a final verification
   * shows `complete` at once, an open one continues its hosted flow, a
   * canceled or expired one is the `VERIFICATION_CLOSED` error. It takes
   * effect whenever it is set before a request is made. Keep it out of URLs
   * and logs.
   */
  declare clientSecret: string | undefined;
  /**
   * Values to fill the form with, in the request's shapes (property only:
   * personal data stays out of the markup): `{ name?: { givenName?,
   * middleName?, familyName? }, dateOfBirth?: 'YYYY-MM-DD', phone?: { code?,
   * number? } }`. The person sees and may correct every value; a field the
   * person already typed in is left alone. It takes effect whenever it is
   * set, before or after the element renders; the worker never stores it.
   */
  declare prefill: Prefill | undefined;
  /** Where the hosted flow sends the person back. Default: this page, with its own query string (without the widget's return parameters and the fragment). */
  declare returnUrl: string | undefined;
  /** Cloudflare Turnstile site key; when set (only then) Turnstile is loaded and its token sent. */
  declare turnstileSitekey: string | undefined;
  /**
   * Initial country code of the mobile number (`+49`). Unset: the calling code of the region of the widget's language
   * (`lang="de-DE"` → +49, `ja-JP` → +81), else of the partner's default country (the worker's `DEFAULT_COUNTRY` or the
   * registry's `defaultCountry`, from `GET {endpoint}/settings`), else of the browser's language (`navigator.languages`),
   * else +61.
   */
  declare countryCode: string | undefined;
  /**
   * Where "Text me a link" is offered (with `sms`): ISO 3166 countries, as the worker's `SMS_ALLOWED_COUNTRIES`
   * (`AU NZ`). Default: that setting's default, `AU NZ GB IE US CA`. A number of any other country sees no such choice.
   */
  declare smsCountries: string | undefined;
  /** The partner's privacy notice: linked from the line above the form that says what the check needs and who checks. */
  declare privacyUrl: string | undefined;
  /**
   * Overrides of any string, in any language (property only): `{ submit: 'Open my account' }`. Merged over the
   * language's dictionary; the keys are those of the exported `Strings` type (docs/embedding.md#languages).
   */
  declare strings: Partial<Strings> | undefined;
  /**
   * Waits (ms) between result polls. While `checking`, the widget polls once,
   * then once after each wait; still not final after the last one is the
   * `RESULT_PENDING` error. While a link is out (`handoff`, `sms-sent`, or `redirecting`
   * with the hosted flow in a popup or another tab), the last wait repeats
   * until the link has expired (plus a grace period).
   */
  declare pollIntervals: number[];
  /** Wait (ms) before the one automatic retry of a link request after a network fault or 502/503/504. */
  declare retryDelay: number;

  /** How the widget leaves the page for the hosted flow. Replace it (e.g. in tests, or to open a popup). */
  navigate: (url: string) => void = (url) => location.assign(url);

  private _locale = new Locale(this);
  private _flow = new Flow(this, this._locale);

  constructor() {
    super();
    this.endpoint = '/api';
    this.sms = false;
    this.pollIntervals = [1000, 1000, 2000, 3000, 5000, 8000, 10000, 10000, 10000, 10000];
    this.retryDelay = 1000;
  }

  /** The current state (read-only; also the host's `state` attribute). */
  get state(): KycState {
    return this._flow.state;
  }

  /** The final check status once `complete`, else `''`. */
  get checkStatus(): string {
    return this._flow.checkStatus;
  }

  protected override firstUpdated(): void {
    // After the first render (and after the host had a chance to add listeners).
    void Promise.resolve().then(() => this._flow.start());
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const v = this._flow.values;
    if (changed.has('countryCode') && this.countryCode && !v.phoneCode) v.phoneCode = this.countryCode;
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('prefill') || changed.has('clientSecret')) this._flow.settingsChanged(changed.has('clientSecret'));
    const flow = this._flow;
    if (changed.has('turnstileSitekey') && this.turnstileSitekey && !flow.bot)
      void import('./turnstile.js').then((m) => m.attach(flow, this._locale.lang));
    // Constraint validation mirrors what is shown: the run does it (run/validity.ts), as only it finds errors.
  }

  override render(): TemplateResult {
    const l = this._locale;
    return html`<div part="base" dir=${l.$dir} lang=${l.lang}>
      ${view({ flow: this._flow, t: l.t, tag: l.tag, lang: l.lang, sms: this.sms, turnstile: !!this.turnstileSitekey })}
    </div>`;
  }
}
