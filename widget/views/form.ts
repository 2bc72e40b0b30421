import { html, nothing, type TemplateResult } from 'lit';
import type { FieldErrors, FieldName } from '../fields.js';
import type { Strings } from '../i18n/en.js';
import { dateOfBirth } from './date-of-birth.js';
import { errorLine, type ViewContext } from './view.js';

type TextField = Exclude<FieldName, 'consent' | 'dateOfBirth'>;
const LABEL: Record<TextField, keyof Strings> = {
  givenName: 'givenName',
  middleName: 'middleName',
  familyName: 'familyName',
  phoneCode: 'countryCode',
  phoneNumber: 'mobileNumber',
};

function field(
  c: ViewContext,
  name: TextField,
  errs: FieldErrors,
  o: { type?: string; autocomplete: string; optional?: boolean; inputmode?: string },
): TemplateResult {
  const { flow, t } = c;
  const err = errs[name];
  // "Given name (if you have one)" says it in its label; "Middle name" has the "Optional" hint.
  const hint = o.optional && name === 'middleName';
  const describedBy = [hint ? `${name}-hint` : '', err ? `${name}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field" part="field">
    <label for=${name} part="label">${t[LABEL[name]]}</label>
    ${hint ? html`<span id="${name}-hint" class="hint" part="hint">${t.optional}</span>` : nothing}
    <input
      id=${name}
      name=${name}
      part="input"
      type=${o.type ?? 'text'}
      autocomplete=${o.autocomplete}
      inputmode=${o.inputmode ?? nothing}
      ?required=${!o.optional}
      .value=${flow.values[name]}
      aria-invalid=${err ? 'true' : nothing}
      aria-describedby=${describedBy || nothing}
    />
    ${errorLine(name, err && (flow.say?.(c, err) ?? t[err]))}
  </div>`;
}

/**
 * "Continue on this device" (preselected), "Continue on my phone" (not on a phone) and "Text me a link" (with `sms`,
 * for a country code texting may go to). No choice to make, no group.
 */
const delivery = ({ flow, t }: ViewContext) => {
  const sms = flow.smsOffered();
  const phone = !flow.onPhone();
  const sendSMS = sms && flow.sendSMS;
  const handoff = phone && !sendSMS && flow.handoff;
  const choice = (id: string, label: string, checked: boolean) =>
    html`<div class="check">
      <input id=${id} type="radio" name="delivery" value=${id} .checked=${checked} />
      <label for=${id}>${label}</label>
    </div>`;
  return sms || phone
    ? html`<fieldset part="choice">
        <legend>${t.deliveryLegend}</legend>
        ${choice('here', t.continueHere, !sendSMS && !handoff)} ${phone ? choice('phone', t.continuePhone, handoff) : nothing}
        ${sms ? choice('sms', t.textMe, sendSMS) : nothing}
      </fieldset>`
    : nothing;
};

/** Family name first where the language writes it first. */
const FAMILY_FIRST = /^(ja|ko|zh|hu|vi)\b/;

/** The line above the form: what the check needs, how long it takes, who checks, and the partner's privacy notice. */
const intro = ({ flow, t }: ViewContext) => {
  const url = flow.host.privacyUrl;
  return html`<p class="hint" part="intro">
    ${t.intro} ${url && /^https?:\/\//i.test(url) ? html`<a href=${url} target="_blank" rel="noopener">${t.privacyLink}</a>` : nothing}
  </p>`;
};

/** `idle`, `submitting`, and a fault while submitting: the form (with the fault above it). */
export const form = (c: ViewContext, fault?: (c: ViewContext) => TemplateResult): TemplateResult => {
  const { flow, t } = c;
  const busy = flow.state === 'submitting';
  const errs = flow.visibleErrors();
  const consentErr = errs.consent;
  const family = field(c, 'familyName', errs, { autocomplete: 'family-name' });
  return html`<form part="form" novalidate @submit=${flow.onSubmit} @input=${flow.onInput} @change=${flow.onInput} @focusout=${flow.onBlur} @focusin=${flow.onFocusIn}>
    ${fault ? fault(c) : nothing} ${flow.attempt ? flow.views.attempt?.(c) : intro(c)}
    ${FAMILY_FIRST.test(c.lang) ? family : nothing}
    ${field(c, 'givenName', errs, { autocomplete: 'given-name', optional: true })}
    ${field(c, 'middleName', errs, { autocomplete: 'additional-name', optional: true })}
    ${FAMILY_FIRST.test(c.lang) ? nothing : family}
    ${dateOfBirth(c, errs)}
    <div class="row">
      ${field(c, 'phoneCode', errs, { autocomplete: 'tel-country-code', inputmode: 'tel' })}
      ${field(c, 'phoneNumber', errs, { type: 'tel', autocomplete: 'tel-national' })}
    </div>
    ${delivery(c)}
    <div class="field" part="field consent">
      <div class="check">
        <input
          id="consent"
          name="consent"
          type="checkbox"
          part="checkbox"
          required
          .checked=${flow.values.consent}
          aria-invalid=${consentErr ? 'true' : nothing}
          aria-describedby=${consentErr ? 'consent-error' : nothing}
        />
        <label for="consent" part="label"><slot name="consent">${t.consent}</slot></label>
      </div>
      ${errorLine('consent', consentErr && t[consentErr])}
    </div>
    ${
      c.turnstile
        ? html`<slot name="turnstile"></slot>
          <div class="error" aria-live="polite">${flow.botMissing ? t.errTurnstile : ''}</div>`
        : nothing
    }
    <div class="actions">
      <button type="submit" part="button submit" aria-disabled=${busy ? 'true' : nothing}>${t.submit}</button>
      <span class="hint" part="status" role="status">${busy ? t.submitting : flow.announce}</span>
    </div>
  </form>`;
};
