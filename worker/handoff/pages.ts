/**
 * The worker's own pages for a phone that continued a verification: the
 * handoff link's landing when it cannot forward, and the return page a
 * handed-off hosted flow ends on. Calm, plain, never an error: the person's
 * part is done, or they go back to where they started.
 */
const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export const HANDOFF_CSS = `body{margin:0;font:1.0625rem/1.5 system-ui,sans-serif;color:#17202a;background:#f3f5f7}
main{max-width:32rem;margin:12vh auto;padding:1.5rem;background:#fff;border-radius:14px;box-shadow:0 1px 2px rgb(16 24 40/6%),0 6px 24px rgb(16 24 40/8%)}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem}p{margin:.5rem 0}.who{color:#4b5563;font-size:.9375rem}
@media (prefers-color-scheme:dark){body{color:#e6e9ee;background:#0d1117}main{background:#161b22}.who{color:#a9b1bc}}`;

export function handoffPage(title: string, message: string, partnerName?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<link rel="stylesheet" href="/handoff/page.css">
</head>
<body>
<main>
${partnerName ? `<p class="who">Identity verification for ${esc(partnerName)}</p>\n` : ''}<h1>${esc(title)}</h1>
<p>${esc(message)}</p>
</main>
</body>
</html>
`;
}

export const PAGES = {
  done: ['All done', 'Go back to your computer: it continues there by itself. You can close this page.'],
  notFinished: ['We could not finish here', 'Go back to your computer to see what happens next. You can close this page.'],
  linkGone: ['This link no longer works', 'It was already opened, or it has expired. Go back to where you started: a new one is shown there.'],
  returnGone: ['This page was already used', 'If you finished the steps, go back to your computer: it continues there by itself.'],
} as const;
