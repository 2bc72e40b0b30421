/**
 * A time of day as the page's language writes it ("14:05", "2:05 PM"). The tag comes from `lang`, `<html lang>` or
 * the browser, and Intl throws on one that is not a language tag: WebKitGTK's `navigator.language` is "C" under a
 * `C` locale, and a partner may write `lang="en_US"`. Then the browser's own default writes it: a view never
 * fails to render over how a time is written.
 */
export function timeOfDay(tag: string, at: number | Date): string {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat(tag, { timeStyle: 'short' });
  } catch {
    format = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
  }
  return format.format(at);
}
