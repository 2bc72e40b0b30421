/**
 * The hosted-flow pages that stand in for the vendor's hosted onboarding.
 * Plain HTML forms (no script, styles from /sandbox/flow.css), so they work
 * without JavaScript and under a strict Content-Security-Policy.
 */
import { esc, htmlPage } from '../rules/html';
import { FORCED_STATUS_BY_FAMILY_NAME } from './outcome';

export const FLOW_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5360; --brand: #0b5cad; --brand-ink: #fff; --line: #c9d1db; --bg: #f4f6f9; }
* { box-sizing: border-box; }
html { font: 100%/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
body { margin: 0; min-height: 100vh; display: flex; align-items: flex-start; justify-content: center; padding: 2rem 1rem; }
main { width: 100%; max-width: 28rem; background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 1.75rem 1.5rem; box-shadow: 0 2px 10px rgb(0 0 0 / 6%); }
.tag { display: inline-block; margin: 0 0 1rem; padding: .15rem .6rem; border-radius: 999px; background: #fff4d6; color: #5c4300; font-size: .8rem; font-weight: 600; letter-spacing: .02em; }
h1 { font-size: 1.4rem; line-height: 1.25; margin: 0 0 .75rem; }
p { margin: 0 0 1rem; color: var(--muted); }
.who { color: var(--ink); font-size: 1.15rem; font-weight: 600; margin: 0 0 1.25rem; overflow-wrap: anywhere; }
form { display: grid; gap: .75rem; margin: 1.25rem 0 1rem; }
button { font: inherit; font-weight: 600; min-height: 2.9rem; padding: .6rem 1rem; border-radius: 8px; cursor: pointer; border: 2px solid var(--brand); }
button:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
.primary { background: var(--brand); color: var(--brand-ink); }
.primary:hover { background: #084a8c; border-color: #084a8c; }
.secondary { background: #fff; color: #8a1c1c; border-color: #8a1c1c; }
.secondary:hover { background: #fdf0f0; }
details { margin-top: 1.5rem; color: var(--muted); font-size: .9rem; }
summary { cursor: pointer; color: var(--brand); }
code { font-size: .85rem; background: var(--bg); padding: 0 .25rem; border-radius: 4px; }
ul { padding-left: 1.2rem; margin: .5rem 0 0; }
.small { font-size: .85rem; }
@media (prefers-reduced-motion: no-preference) { button { transition: background-color .15s; } }
`;

function page(title: string, body: string): string {
  return htmlPage({
    lang: 'en',
    title: `${title} · Identity verification (sandbox)`,
    stylesheet: '/sandbox/flow.css',
    body: `<main>
<p class="tag">Sandbox</p>
${body}
</main>
`,
  });
}

export function flowPage(opts: { action: string; personName: string; expiresAt: string }): string {
  const rules = Object.entries(FORCED_STATUS_BY_FAMILY_NAME)
    .map(([name, status]) => `<li>Family name <code>${esc(name)}</code> → <code>${esc(status)}</code></li>`)
    .join('');
  return page(
    'Verify your identity',
    `<h1>Verify your identity</h1>
<p>This page stands in for the verification provider's hosted flow. You are verifying:</p>
<p class="who">${esc(opts.personName)}</p>
<form method="post" action="${esc(opts.action)}">
<button class="primary" type="submit" name="outcome" value="complete">Complete verification</button>
<button class="secondary" type="submit" name="outcome" value="fail">Fail verification</button>
</form>
<p class="small">This link works until ${esc(opts.expiresAt)}.</p>
<details>
<summary>Other outcomes for testing</summary>
<p class="small">"Complete verification" gives <code>CHECKED_SUCCESS_CLEAR</code>, "Fail verification" gives <code>CHECKED_FAILED</code>, unless the family name forces a status:</p>
<ul class="small">${rules}</ul>
</details>`,
  );
}

export function donePage(): string {
  return page(
    'Verification finished',
    `<h1>Verification finished</h1>
<p>Thank you. You can close this page and go back to where you started.</p>`,
  );
}

export function expiredPage(): string {
  return page(
    'Link expired',
    `<h1>This link has expired</h1>
<p>For your security, verification links only work for a short time. Go back to where you started and ask for a new link.</p>`,
  );
}

export function unknownLinkPage(): string {
  return page(
    'Link not found',
    `<h1>This link is not valid</h1>
<p>Check that you opened the whole link, or go back to where you started and ask for a new one.</p>`,
  );
}
