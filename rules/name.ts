/**
 * What a name may be made of. Shared by the worker (which refuses, naming the
 * field), the widget (which says so before any request) and the sandbox.
 *
 * - Names that look empty: made only of characters that render as nothing
 *   (Hangul fillers, which are letters by category, the blank Braille
 *   pattern, spaces of every kind, invisible format characters). Such a
 *   "family name" passes a non-empty check and shows blank in the vendor's
 *   portal.
 * - Characters no name needs, which make two names that read the same differ
 *   (screening at the vendor may not normalise or strip them): the Unicode
 *   default-ignorable code points (zero-width space, soft hyphen, word joiner,
 *   BOM, combining grapheme joiner, Mongolian vowel separator, fillers,
 *   tags…), except the joiners ZWJ/ZWNJ between letters of a script that
 *   needs them (Arabic, Indic and other Brahmic scripts, Syriac, Mongolian…),
 *   variation selectors right after a letter (ideographic variants of
 *   Japanese and Chinese names), and the bidi marks LRM/RLM/ALM (a name mixing
 *   directions needs them); a combining mark with no base (at the start, or
 *   after a space or punctuation); private-use characters; noncharacters.
 *
 * Names are NFC-normalised before these rules and before they go to the
 * vendor (`normaliseName`), so "é" typed as e + U+0301 and as U+00E9 are the
 * same name.
 */
const BLANK = /^[\s\u3164\u115f\u1160\uffa0\u2800\u200b-\u200f\u2060-\u2064\u180e\ufeff\u{e0000}-\u{e007f}]*$/u;

/** True when `name` has nothing a reader would see. */
export function isVisiblyBlank(name: string): boolean {
  return BLANK.test(name);
}

/** The form a name is checked and sent in: NFC, trimmed, runs of whitespace as one space. */
export const normaliseName = (s: string): string =>
  s
    .normalize('NFC')
    .trim()
    .replace(/[^\S\ufeff]+/g, ' ');

/** Scripts whose spelling uses ZWJ/ZWNJ between letters. */
const JOINING =
  '\\p{sc=Arabic}\\p{sc=Syriac}\\p{sc=Nko}\\p{sc=Mongolian}\\p{sc=Devanagari}\\p{sc=Bengali}\\p{sc=Gurmukhi}\\p{sc=Gujarati}' +
  '\\p{sc=Oriya}\\p{sc=Tamil}\\p{sc=Telugu}\\p{sc=Kannada}\\p{sc=Malayalam}\\p{sc=Sinhala}\\p{sc=Myanmar}\\p{sc=Khmer}' +
  '\\p{sc=Tibetan}\\p{sc=Thaana}\\p{sc=Phags_Pa}\\p{sc=Manichaean}\\p{sc=Psalter_Pahlavi}';
/** A joiner between two letters (and their marks) of such a script. */
const JOINER_IN_WORD = new RegExp(`(?<=[${JOINING}]\\p{M}*)[\\u200c\\u200d](?=[${JOINING}])`, 'gu');
/** A variation selector right after a letter (and its marks): an ideographic or Mongolian variant. */
const VARIANT_OF_LETTER = /(?<=\p{L}\p{M}*)[\ufe00-\ufe0f\u180b-\u180d\u180f\u{e0100}-\u{e01ef}]/gu;

/** Default-ignorable code points (Unicode DerivedCoreProperties), bidi marks LRM/RLM/ALM left out. */
// Each listed code point is refused on its own, joiners and variation selectors included.
const DEFAULT_IGNORABLE =
  // eslint-disable-next-line no-misleading-character-class
  /[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0000}-\u{e0fff}]/u;
const MARK_WITHOUT_BASE = /(?:^|[^\p{L}\p{M}\p{N}])\p{M}/u;
const PRIVATE_USE = /\p{Co}/u;
const NONCHARACTER =
  /[\ufdd0-\ufdef\ufffe\uffff\u{1fffe}\u{1ffff}\u{2fffe}\u{2ffff}\u{3fffe}\u{3ffff}\u{4fffe}\u{4ffff}\u{5fffe}\u{5ffff}\u{6fffe}\u{6ffff}\u{7fffe}\u{7ffff}\u{8fffe}\u{8ffff}\u{9fffe}\u{9ffff}\u{afffe}\u{affff}\u{bfffe}\u{bffff}\u{cfffe}\u{cffff}\u{dfffe}\u{dffff}\u{efffe}\u{effff}\u{ffffe}\u{fffff}\u{10fffe}\u{10ffff}]/u;

export type NameCharacterProblem = 'invisible' | 'mark-without-base' | 'private-use' | 'noncharacter';

/** What is wrong with the characters of a (normalised) name, if anything. */
export function nameCharacterProblem(name: string): NameCharacterProblem | undefined {
  const rest = name.replace(JOINER_IN_WORD, '').replace(VARIANT_OF_LETTER, '');
  if (DEFAULT_IGNORABLE.test(rest)) return 'invisible';
  if (MARK_WITHOUT_BASE.test(name)) return 'mark-without-base';
  if (PRIVATE_USE.test(name)) return 'private-use';
  if (NONCHARACTER.test(name)) return 'noncharacter';
  return undefined;
}
