import type { Deps } from '../../flow-api.js';
import type { View } from '../../views/view.js';

/** Back from the hosted flow in a tab without the session (a new tab, another browser): finish where you started. */
export const notice =
  ({ html }: Deps): View =>
  ({ t }) =>
    html`<div class="panel" part="message">
    <h2 tabindex="-1" id="focus">${t.noSession}</h2>
  </div>`;
