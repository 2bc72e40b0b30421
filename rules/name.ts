/**
 * Names that look empty: made only of characters that render as nothing
 * (Hangul fillers, which are letters by category, the blank Braille pattern,
 * spaces of every kind, invisible format characters). Such a "family name"
 * passes a non-empty check and shows blank in the vendor's portal. Shared by
 * the worker and the widget (in its run chunk, which has the room).
 */
const BLANK = /^[\s\u3164\u115f\u1160\uffa0\u2800\u200b-\u200f\u2060-\u2064\u180e\ufeff\u{e0000}-\u{e007f}]*$/u;

/** True when `name` has nothing a reader would see. */
export function isVisiblyBlank(name: string): boolean {
  return BLANK.test(name);
}
