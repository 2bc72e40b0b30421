/**
 * The styles of what only the run shows (the handoff's QR code and link, the
 * code, the outcome and attempt panels, the secondary buttons), adopted into
 * the element's shadow root when the run arrives: the first load carries only
 * the form's (widget/styles.ts, whose custom properties these use). A
 * constructed stylesheet, as Lit's own: nothing a strict CSP blocks.
 */

/** Tags the CSS so the build minifies it as it does Lit's css`` (scripts/lib/widget-esbuild.mjs). */
const css = (s: TemplateStringsArray) => s.join('');

const RUN_CSS = css`
  /* The handoff QR code: large enough for a phone camera across a desk, never wider than the widget. */
  .qr {
    display: block;
    width: min(100%, 16rem);
    height: auto;
    border-radius: 4px;
  }
  /* After .row in weight (two classes): the link takes the room, the button its own width. */
  .row.copy {
    display: grid;
    grid-template-columns: 1fr auto;
    align-items: center;
  }
  /* The texted link's code: read aloud digit by digit, typed on the phone. */
  .code {
    font-size: 1.5em;
    letter-spacing: 0.15em;
    font-variant-numeric: tabular-nums;
    white-space: nowrap;
  }
  button.secondary {
    background: transparent;
    color: var(--_primary);
  }
  /* An outcome is neutral; only a clear success is green. */
  .outcome {
    padding-inline-start: calc(var(--_space) * 0.75);
    border-inline-start: 4px solid var(--_border);
  }
  .ok {
    border-color: var(--_success);
  }
  h2 {
    margin: 0;
    font-size: 1em;
  }
`;

/** Adds the run's styles to the element's shadow root (once per element). */
export function adoptRunStyles(root: ShadowRoot): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(RUN_CSS);
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}
