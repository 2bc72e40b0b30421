import { html, nothing, type TemplateResult } from 'lit';
import { dateOrder } from '../../rules/language.js';
import { dobPartsOf, type FieldErrors } from '../fields.js';
import { errorLine, type ViewContext } from './view.js';

export { dateOrder };

/**
 * "Date of birth" as a group of three numeric fields, "Day", "Month", "Year"
 * (a date people know by heart is quicker typed than picked, and reads in the
 * page's language). No auto-advance: Tab moves on, as everywhere else. The
 * error names the wrong part and marks only it.
 */
export function dateOfBirth(c: ViewContext, errs: FieldErrors): TemplateResult {
  const { flow, t, tag } = c;
  const err = errs.dateOfBirth;
  const wrong = dobPartsOf(err);
  return html`<fieldset class="field" part="field" aria-describedby=${err ? 'dateOfBirth-error' : nothing}>
    <legend part="label">${t.dateOfBirth}</legend>
    <div class="dob">
      ${dateOrder(tag).map((p) => {
        const id = `dob${p[0]!.toUpperCase()}${p.slice(1)}` as 'dobDay' | 'dobMonth' | 'dobYear';
        const bad = wrong.includes(id);
        return html`<div class="field ${p}">
          <label for=${id} part="label">${t[id]}</label>
          <input
            id=${id}
            name=${id}
            part="input"
            inputmode="numeric"
            autocomplete="bday-${p}"
            required
            .value=${flow.values[id]}
            aria-invalid=${bad ? 'true' : nothing}
            aria-describedby=${bad ? 'dateOfBirth-error' : nothing}
          />
        </div>`;
      })}
    </div>
    ${errorLine('dateOfBirth', err && (flow.say?.(c, err) ?? t[err]))}
  </fieldset>`;
}
