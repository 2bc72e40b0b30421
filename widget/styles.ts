import { css } from 'lit';

/** The dark palette: written once, used for `prefers-color-scheme: dark` and for `theme="dark"`. */
const dark = css`
  --_bg: var(--kyc-color-background, #16181d);
  --_fg: var(--kyc-color-text, #eceef2);
  --_muted: var(--kyc-color-muted, #b4b9c4);
  --_border: var(--kyc-color-border, #8a90a0);
  --_primary: var(--kyc-color-primary, #8ab4ff);
  --_on-primary: var(--kyc-color-on-primary, #0b1020);
  --_error: var(--kyc-color-error, #ff9c92);
  --_success: var(--kyc-color-success, #6ce0a4);
  color-scheme: dark;
`;

/**
 * Every colour, size and font comes from a `--kyc-*` custom property with a
 * built-in default, so the element looks right with no theme CSS. Light and
 * dark follow `prefers-color-scheme`; `theme="light"` / `theme="dark"` on the
 * host pins one. Logical properties only, so right-to-left just works.
 * (Adopted stylesheets: no inline `style`, nothing a strict CSP blocks.) The
 * rules of what only the run shows (the QR code, the code, the outcome, the
 * secondary buttons) come with the run chunk (run/styles.ts).
 */
export const styles = css`
  :host {
    --_bg: var(--kyc-color-background, #fff);
    --_fg: var(--kyc-color-text, #1a1c23);
    --_muted: var(--kyc-color-muted, #545a66);
    --_border: var(--kyc-color-border, #7b8190);
    --_primary: var(--kyc-color-primary, #1d4ed8);
    --_on-primary: var(--kyc-color-on-primary, #fff);
    --_error: var(--kyc-color-error, #b42318);
    --_success: var(--kyc-color-success, #067647);
    --_radius: var(--kyc-radius, 0.5rem);
    --_space: var(--kyc-spacing, 1rem);
    display: block;
    max-inline-size: var(--kyc-max-width, 32rem);
    padding: var(--_space);
    border-radius: var(--_radius);
    background: var(--_bg);
    color: var(--_fg);
    font: var(--kyc-font-size, 1rem) / 1.5 var(--kyc-font-family, system-ui, sans-serif);
    color-scheme: light;
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme='light'])) {
      ${dark}
    }
  }
  :host([theme='dark']) {
    ${dark}
  }
  :host([hidden]) {
    display: none;
  }
  /* What the host page sets on an ancestor (Vite's #root centres text) is inherited into the shadow root: reset the
     properties that move the layout, so labels stay beside their buttons and lines keep their height. */
  [part~='base'] {
    text-align: start;
    line-height: 1.5;
    font-size: var(--kyc-font-size, 1rem);
    letter-spacing: normal;
    word-spacing: normal;
    text-transform: none;
    text-indent: 0;
    white-space: normal;
    /* A word longer than the line breaks rather than run past the widget's edge: labels in Polish, Russian and
       Ukrainian at 320 px, Hungarian's "Személyazonosságom" on the button at 280 px in Firefox's font. */
    overflow-wrap: anywhere;
  }
  * {
    box-sizing: border-box;
  }
  form,
  .panel {
    display: grid;
    gap: calc(var(--_space) * 0.75);
    margin: 0;
  }
  .field {
    display: grid;
    gap: 0.25rem;
  }
  /* Country code and number side by side while both labels fit on one line each (so the inputs line up), one
     under the other on a narrow screen or with long labels: a label never runs into the other field. */
  .row {
    display: flex;
    flex-wrap: wrap;
    gap: calc(var(--_space) * 0.5);
    /* Each field keeps its own height: an error under the number must not stretch the country code. */
    align-items: start;
  }
  .row > .field {
    flex: 1 1 7.5rem;
  }
  .row > .field + .field {
    flex: 3 1 12rem;
  }
  .dob {
    display: flex;
    flex-wrap: wrap;
    gap: calc(var(--_space) * 0.5);
  }
  /* Each part as wide as its label needs ("Kuukausi"), at least as wide as its digits. */
  .dob .field {
    min-inline-size: 4.5rem;
  }
  .dob .year {
    min-inline-size: 6.5rem;
  }
  .dob label {
    white-space: nowrap;
  }
  /* No width of its own to offer the part (an input's default is about 20 characters): it fills what the label set.
     (:not(#_) outweighs the general input rule.) */
  .dob input:not(#_) {
    inline-size: 0;
    min-inline-size: 100%;
  }
  legend {
    padding: 0;
  }
  /* Phone numbers read left to right in every language ("+61", not "61+"). */
  .row input {
    direction: ltr;
  }
  label,
  legend {
    font-weight: 600;
  }
  .hint {
    color: var(--_muted);
    font-size: 0.875em;
  }
  input:not([type='checkbox'], [type='radio']) {
    inline-size: 100%;
    min-block-size: 2.75rem;
    padding-block: 0.5rem;
    padding-inline: 0.75rem;
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: var(--_bg);
    color: inherit;
    font: inherit;
  }
  input[aria-invalid='true'] {
    border-color: var(--_error);
    border-width: 2px;
  }
  input:focus-visible,
  button:focus-visible,
  a:focus-visible,
  [tabindex='-1']:focus-visible {
    outline: 3px solid var(--kyc-color-focus, var(--_primary));
    outline-offset: 2px;
  }
  .check {
    display: grid;
    grid-template-columns: auto 1fr;
    align-items: start;
    gap: 0.5rem;
  }
  .check label {
    font-weight: 400;
  }
  input[type='checkbox'],
  input[type='radio'] {
    inline-size: 1.25rem;
    block-size: 1.25rem;
    margin: 0.15rem 0 0;
    accent-color: var(--_primary);
  }
  fieldset {
    display: grid;
    gap: 0.25rem;
    margin: 0;
    padding: 0;
    border: 0;
  }
  .error {
    color: var(--_error);
    font-size: 0.875em;
  }
  .error:empty {
    display: none;
  }
  button {
    min-block-size: 2.75rem;
    padding-block: 0.5rem;
    padding-inline: 1.25rem;
    border: 2px solid var(--_primary);
    border-radius: var(--_radius);
    background: var(--_primary);
    color: var(--_on-primary);
    font: inherit;
    font-weight: 600;
    cursor: pointer;
  }
  button[aria-disabled='true'] {
    opacity: 0.7;
    cursor: progress;
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    gap: calc(var(--_space) * 0.5);
  }
  .alert {
    padding-inline-start: calc(var(--_space) * 0.75);
    border-inline-start: 4px solid var(--_error);
  }
  p {
    margin: 0;
  }
  a {
    color: var(--_primary);
  }
  progress {
    inline-size: 100%;
    accent-color: var(--_primary);
  }
`;
