import { html } from 'lit';

export type { View, ViewContext } from '../flow-api.js';

/** The error line under a field; empty (and taking no room) until a submission finds the field wrong. */
export const errorLine = (id: string, text: string | undefined) =>
  html`<div id="${id}-error" class="error" part="field-error" aria-live="polite">${text ?? ''}</div>`;
