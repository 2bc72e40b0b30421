import type { Deps } from '../../flow-api.js';
import type { View } from '../../views/view.js';

/**
 * Above the form when an attempt ended `requires_input` (the check found no match: maybe a typo): what to do, as a
 * heading that gets focus. The form below is as the person left it; sending it is the next attempt.
 */
export const attempt =
  ({ html }: Deps): View =>
  ({ t }) =>
    html`<div class="panel outcome" part="message attempt">
    <h2 tabindex="-1" id="focus">${t.requiresInput}</h2>
    <p>${t.requiresInputHint}</p>
  </div>`;
