/**
 * The worker's own pages for a phone that continued a verification: the
 * handoff link's landing when it cannot forward, and the return page a
 * handed-off hosted flow ends on. Calm, plain, never an error: the person's
 * part is done, or they go back to where they started.
 */
import { esc, htmlPage } from '../../rules/html';
import { fill } from '../../rules/message';
import { isRtl, type PageLang, type PageStrings } from './page-strings';

export const HANDOFF_CSS = `body{margin:0;font:1.0625rem/1.5 system-ui,sans-serif;color:#17202a;background:#f3f5f7}
main{max-width:32rem;margin:12vh auto;padding:1.5rem;background:#fff;border-radius:14px;box-shadow:0 1px 2px rgb(16 24 40/6%),0 6px 24px rgb(16 24 40/8%)}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem}p{margin:.5rem 0}.who{color:#4b5563;font-size:.9375rem}
label{display:block;font-weight:600;margin:1rem 0 .375rem}
input{font:inherit;font-size:1.5rem;letter-spacing:.3em;width:9ch;padding:.5rem .75rem;border:2px solid #4b5563;border-radius:8px}
input:focus-visible,button:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
button{display:block;margin-top:1rem;font:inherit;font-weight:600;padding:.75rem 1.25rem;min-height:44px;border:0;border-radius:8px;background:#1d4ed8;color:#fff;cursor:pointer}
.error{color:#b42318;font-weight:600}
@media (prefers-color-scheme:dark){body{color:#e6e9ee;background:#0d1117}main{background:#161b22}.who{color:#a9b1bc}}`;

/** "Requested by {partner}.": who asked for the check, on every page of a verification whose partner is known. */
export const whoLine = (t: PageStrings, partnerName: string | undefined): string =>
  partnerName ? `<p class="who">${esc(fill(t.requestedBy, { partner: partnerName }, t.lang))}</p>\n` : '';

/** The return page of a handed-off link: asks for the code shown where the person started ("the 6-digit code on your computer"). */
export function codePage(lang: PageLang, t: PageStrings, action: string, problem?: string, partnerName?: string): string {
  const [title, message] = t.enterCode;
  const form = `<form method="post" action="${esc(action)}">
<label for="code">${esc(t.codeLabel)}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="7" dir="ltr" required${problem ? ' aria-invalid="true" aria-describedby="problem"' : ''} autofocus>
${
  problem
    ? `<p id="problem" class="error" role="alert">${esc(problem)}</p>
`
    : ''
}<button type="submit">${esc(t.confirm)}</button>
</form>`;
  return handoffPage(lang, title, message, form, whoLine(t, partnerName));
}

/**
 * What a handoff URL shows on GET or HEAD: who asks for the check, and a
 * "Continue" button whose POST forwards to the hosted flow (and uses the link
 * up). A link preview or a mail scanner that opens the URL leaves it working.
 */
export function continuePage(lang: PageLang, t: PageStrings, action: string, partnerName: string | undefined): string {
  const [title, message] = t.continueTitle;
  const form = `<form method="post" action="${esc(action)}">
<button type="submit">${esc(t.continue)}</button>
</form>`;
  return handoffPage(lang, title, message, form, whoLine(t, partnerName));
}

/** A phone page: its title, its message, who asked for the check (`who`, under the title) and any form (`extra`). */
export function handoffPage(lang: PageLang, title: string, message: string, extra = '', who = ''): string {
  return htmlPage({
    lang,
    rtl: isRtl(lang),
    title,
    stylesheet: '/handoff/page.css',
    body: `<main>
<h1>${esc(title)}</h1>
${who}<p>${esc(message)}</p>
${extra}</main>
`,
  });
}
