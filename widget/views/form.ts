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
  { flow, t }: ViewContext,
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
      .value=${flow.values[name]}
      aria-invalid=${err ? 'true' : nothing}
      aria-describedby=${describedBy || nothing}
    />
    ${errorLine(name, err && t[err])}
  </div>`;
}

/** "Continue on this device" / "Continue on my phone" (always), and "Text me a link" where `sms` is set. */
const delivery = ({ flow, t, sms }: ViewContext) => {
  const sendSMS = sms && flow.sendSMS;
  return html`<fieldset part="choice">
    <legend>${t.deliveryLegend}</legend>
    <div class="check">
      <input id="here" type="radio" name="delivery" value="here" .checked=${!sendSMS && !flow.handoff} />
      <label for="here">${t.continueHere}</label>
    </div>
    <div class="check">
      <input id="phone" type="radio" name="delivery" value="phone" .checked=${!sendSMS && flow.handoff} />
      <label for="phone">${t.continuePhone}</label>
    </div>
    ${
      sms
        ? html`<div class="check">
          <input id="sms" type="radio" name="delivery" value="sms" .checked=${sendSMS} />
          <label for="sms">${t.textMe}</label>
        </div>`
        : nothing
    }
  </fieldset>`;
};

/** `idle`, `submitting`, and a fault while submitting: the form (with the fault above it). */
export const form = (c: ViewContext, fault?: (c: ViewContext) => TemplateResult): TemplateResult => {
  const { flow, t } = c;
  const busy = flow.state === 'submitting';
  const errs = flow.visibleErrors();
  const consentErr = errs.consent;
  return html`<form part="form" novalidate @submit=${flow.onSubmit} @input=${flow.onInput} @change=${flow.onInput} @focusout=${flow.onBlur} @focusin=${flow.onFocusIn}>
    ${fault ? fault(c) : nothing}
    ${field(c, 'givenName', errs, { autocomplete: 'given-name', optional: true })}
    ${field(c, 'middleName', errs, { autocomplete: 'additional-name', optional: true })}
    ${field(c, 'familyName', errs, { autocomplete: 'family-name' })}
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
