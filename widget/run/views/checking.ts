import type { Deps } from '../../flow-api.js';
import type { View } from '../../views/view.js';
import { timeOfDay } from '../time-of-day.js';

/**
 * `checking` once the run is here (the entry's plain one shows until then): the same message and progress bar,
 * focusable, and what the wait is about: offline, it waits for the connection; slow, why, and by when.
 */
export const checking =
  ({ html, nothing }: Deps): View =>
  ({ flow, t, tag }) =>
    html`<div class="panel" part="message" role="status">
    <p tabindex="-1" id="focus">${t.checking}</p>
    <progress aria-label=${t.checking}></progress>
    ${
      !navigator.onLine
        ? html`<p>${t.offlineWait}</p>`
        : flow.slowBy
          ? html`<p>${t.checkingSlow.replace('{time}', timeOfDay(tag, flow.slowBy))}</p>`
          : nothing
    }
  </div>`;
