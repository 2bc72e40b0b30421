/**
 * The Stripe double's hosted page: stands in for Stripe's verification flow.
 * Plain HTML forms (no script, the sandbox's stylesheet): Verify, Fail with a
 * chosen `last_error.code`, or Abandon.
 */
import { esc, htmlPage } from '../../rules/html';

function page(title: string, body: string): string {
  return htmlPage({
    lang: 'en',
    title: `${title} · Stripe Identity (sandbox)`,
    stylesheet: '/sandbox/flow.css',
    body: `<main>
<p class="tag">Sandbox · Stripe Identity</p>
${body}
</main>
`,
  });
}

export function stripeFlowPage(opts: { action: string; codes: readonly string[] }): string {
  const options = opts.codes
    .filter((c) => c !== 'abandoned')
    .map((c) => `<option value="${esc(c)}">${esc(c)}</option>`)
    .join('');
  return page(
    'Verify your identity',
    `<h1>Verify your identity</h1>
<p>This page stands in for Stripe Identity's hosted verification. Choose how this attempt ends:</p>
<form method="post" action="${esc(opts.action)}">
<button class="primary" type="submit" name="choice" value="verify">Verify</button>
</form>
<form method="post" action="${esc(opts.action)}">
<label for="code">Error code</label>
<select id="code" name="code">${options}</select>
<button class="secondary" type="submit" name="choice" value="fail">Fail</button>
</form>
<form method="post" action="${esc(opts.action)}">
<button class="secondary" type="submit" name="choice" value="abandon">Abandon</button>
</form>
<details>
<summary>What each choice does</summary>
<p class="small">"Verify" makes the session <code>verified</code>. "Fail" leaves it <code>requires_input</code> with the chosen <code>last_error.code</code>. "Abandon" leaves it <code>requires_input</code> with <code>abandoned</code>: the session can still be completed through a fresh link.</p>
</details>`,
  );
}

export function stripeDonePage(): string {
  return page('Finished', `<h1>Finished</h1>\n<p>You can close this page and go back to where you started.</p>`);
}

export function stripeUsedPage(): string {
  return page(
    'Link no longer valid',
    `<h1>This link is no longer valid</h1>
<p>Verification links are short-lived and work once. Go back to where you started and open the link again.</p>`,
  );
}
