import type { Deps } from '../../flow-api.js';
import type { View } from '../../views/view.js';

/** `redirecting`: on the way to the hosted flow, with a link in case the browser does not go. */
export const redirecting =
  ({ html, nothing }: Deps): View =>
  ({ flow, t }) =>
    html`<div class="panel" part="message">
    <p role="status" tabindex="-1" id="focus">${t.redirecting}</p>
    ${flow.link?.url ? html`<p><a part="link" href=${flow.link.url}>${t.continueLink}</a></p>` : nothing}
  </div>`;
