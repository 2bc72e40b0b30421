import type { Deps } from '../../flow-api.js';
import type { View } from '../../views/view.js';
import type { RunActions } from '../actions.js';

/**
 * Back from the hosted flow with no result in the URL (the browser's Back button): at once, the two ways on:
 * "Continue the check" (the same link, while it is valid) and "Change my details" (the form, as it was). The tab
 * keeps asking meanwhile, so a check finished elsewhere still shows its outcome.
 */
export const left =
  ({ html, nothing }: Deps, a: RunActions): View =>
  ({ flow, t }) => {
    const valid = !!flow.link?.url && Date.parse(flow.link.urlExpiry) > Date.now();
    return html`<div class="panel" part="message">
    <h2 tabindex="-1" id="focus">${t.leftFlow}</h2>
    <div class="actions">
      ${valid ? html`<button type="button" part="button" @click=${a.continueCheck}>${t.continueCheck}</button>` : nothing}
      <button type="button" class=${valid ? 'secondary' : ''} part=${valid ? 'button secondary' : 'button'} @click=${a.startAgain}>
        ${t.changeDetails}
      </button>
    </div>
  </div>`;
  };
