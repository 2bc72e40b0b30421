import { html, type TemplateResult } from 'lit';
import type { Flow } from '../flow.js';
import type { Strings } from '../i18n/en.js';

/** What every view renders from. */
export interface ViewContext {
  flow: Flow;
  t: Strings;
  /** The language tag dates and times are written in (`fr-CA`). */
  tag: string;
  /** The language of the strings shown (`t`): their plurals follow its rules. */
  lang: string;
  /** The element's `sms` attribute: offer "Text me a link". */
  sms: boolean;
  /** Turnstile is on (`turnstile-sitekey`). */
  turnstile: boolean;
}

/** A view: one state's content. */
export type View = (c: ViewContext) => TemplateResult;

/** The error line under a field; empty (and taking no room) until a submission finds the field wrong. */
export const errorLine = (id: string, text: string | undefined) =>
  html`<div id="${id}-error" class="error" part="field-error" aria-live="polite">${text ?? ''}</div>`;
