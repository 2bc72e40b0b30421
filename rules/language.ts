/**
 * The languages the widget and the phone's pages speak, and how a language
 * tag (`lang`, `<html lang>`, the browser's, `Accept-Language`) picks one.
 * Shared by the widget (only `matchLanguage`, in its entry: the list stays out
 * of it, so the first load does not grow with the languages), the worker's
 * handoff pages, the build's dictionary check and the tests.
 */

/** Every language with a dictionary: the EU's 24 official languages, then 24 more. English is the fallback. */
export const LANGUAGES = [
  // EU official languages
  'bg',
  'cs',
  'da',
  'de',
  'el',
  'en',
  'es',
  'et',
  'fi',
  'fr',
  'ga',
  'hr',
  'hu',
  'it',
  'lt',
  'lv',
  'mt',
  'nl',
  'pl',
  'pt',
  'ro',
  'sk',
  'sl',
  'sv',
  // right to left
  'ar',
  'he',
  'fa',
  'ur',
  // and more
  'tr',
  'ru',
  'uk',
  'sr',
  'hi',
  'bn',
  'ja',
  'ko',
  'zh-Hans',
  'zh-Hant',
  'id',
  'ms',
  'vi',
  'th',
  'fil',
  'sw',
  'nb',
  'is',
  'ca',
  'pt-BR',
] as const;

export type Language = (typeof LANGUAGES)[number];

/** Languages written right to left. */
export const RTL_LANGUAGES: readonly Language[] = ['ar', 'he', 'fa', 'ur'];

/**
 * The dictionary a language tag asks for, as people expect: `pt-BR` → `pt-BR`
 * and any other `pt` → `pt`; `zh-TW`, `zh-HK`, `zh-MO`, `zh-Hant-*` →
 * `zh-Hant` and any other `zh` → `zh-Hans`; `no`, `nn`, `nb` → `nb`; `tl` →
 * `fil`; otherwise the primary subtag in lower case (`fr-CA` → `fr`). Not a
 * language tag at all → `en`. The answer may be a language without a
 * dictionary (`ka`): the caller falls back to English.
 */
export function matchLanguage(tag: string): string {
  const t = tag.toLowerCase();
  const p = t.split('-')[0]!;
  return !/^[a-z]{2,3}$/.test(p)
    ? 'en'
    : p == 'zh'
      ? /^zh-(hant|tw|hk|mo)\b/.test(t)
        ? 'zh-Hant'
        : 'zh-Hans'
      : p == 'pt' && /-br\b/.test(t)
        ? 'pt-BR'
        : /^n[bno]$/.test(p)
          ? 'nb'
          : p == 'tl'
            ? 'fil'
            : p;
}

/** The supported language a tag asks for, or `undefined` (no dictionary for it). */
export function supportedLanguage(tag: string): Language | undefined {
  const m = matchLanguage(tag);
  return (LANGUAGES as readonly string[]).includes(m) ? (m as Language) : undefined;
}

/**
 * The first supported language of an `Accept-Language` header, by its
 * weights (`q`; `q=0` means "not this one"), or `undefined`.
 */
export function fromAcceptLanguage(header: string | undefined): Language | undefined {
  const asked = (header ?? '')
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((a) => a.tag && a.tag !== '*' && a.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const a of asked) {
    const l = supportedLanguage(a.tag);
    if (l) return l;
  }
  return undefined;
}

/** A part of a date, as the date-of-birth fields are named. */
export type DatePart = 'day' | 'month' | 'year';

const DMY: DatePart[] = ['day', 'month', 'year'];
const MDY: DatePart[] = ['month', 'day', 'year'];
const YMD: DatePart[] = ['year', 'month', 'day'];

/**
 * Day, month and year in the order `tag` writes dates (CLDR's short date
 * patterns, as `Intl.DateTimeFormat` gives them). A table, not Intl: building
 * the first date formatter costs the widget's start several milliseconds.
 * Day first everywhere but the languages and regions below; a bare `en` is day
 * first, as most English-speaking countries write dates.
 */
export function dateOrder(tag: string): DatePart[] {
  const t = tag.toLowerCase();
  return /^(en-(us|ph|as|gu|mp|pr|um|vi)|fil|tl)\b/.test(t)
    ? MDY
    : /^(zh|ja|ko|hu|lt|mn|sv|eu|fa|af|fr-ca|en-ca|en-za)\b/.test(t)
      ? YMD
      : DMY;
}
