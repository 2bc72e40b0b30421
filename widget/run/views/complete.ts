import type { Deps } from '../../flow-api.js';
import type { View } from '../../views/view.js';

/**
 * `complete`: a final check status, as a heading that gets focus (a live
 * region that was on the page before may stay silent after a return). Only a
 * clear success carries the success accent; any other outcome is neutral
 * (never "you failed": the partner says what comes next). One slot per kind
 * of outcome, `outcome-verified` and `outcome-failed`, each falling back to
 * `outcome` (the slot for both), so a success never shows the failure's hint.
 */
export const complete =
  ({ html }: Deps): View =>
  ({ flow, t }) => {
    const ok = flow.outcome === 'verified';
    return html`<div class="panel outcome ${ok ? 'ok' : ''}" part="message complete">
    <h2 tabindex="-1" id="focus">${ok ? t.completeSuccess : t.completeOther}</h2>
    <slot name=${ok ? 'outcome-verified' : 'outcome-failed'}><slot name="outcome"></slot></slot>
  </div>`;
  };
