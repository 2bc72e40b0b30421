import { html } from 'lit';
import type { View } from './view.js';

/** `checking`: back from the hosted flow, asking for the result. */
export const checking: View = ({ t }) =>
  html`<div class="panel" part="message" role="status">
    <p>${t.checking}</p>
    <progress aria-label=${t.checking}></progress>
  </div>`;
