/**
 * The one HTML helper of the server-rendered pages (the phone's handoff pages,
 * the sandbox's hosted flow, /ops): `esc` for text and attribute values, and
 * `htmlPage`, the document around a body: no script, one stylesheet, not
 * indexed, no referrer. Plain functions, so the sandbox shares it without
 * importing product code.
 */

/** Text or an attribute value, safe inside HTML (`&<>"'` as character references). */
export const esc = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export interface HtmlPage {
  lang: string;
  /** Right-to-left languages set `dir="rtl"` on the document. */
  rtl?: boolean;
  /** Plain text: escaped here. */
  title: string;
  /** The page's one stylesheet (a same-origin path). */
  stylesheet: string;
  /** The body's markup, already escaped by the caller. */
  body: string;
}

export function htmlPage(p: HtmlPage): string {
  return `<!doctype html>
<html lang="${esc(p.lang)}"${p.rtl ? ' dir="rtl"' : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${esc(p.title)}</title>
<link rel="stylesheet" href="${esc(p.stylesheet)}">
</head>
<body>
${p.body}</body>
</html>
`;
}
