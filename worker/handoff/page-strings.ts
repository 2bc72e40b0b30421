/**
 * The phone's pages in the widget's 48 languages (rules/language.ts). The
 * page takes the widget's language from the `l` parameter the worker itself
 * put in the handoff and return URLs (from the link request's `lang`), else
 * the phone's `Accept-Language`, else English.
 *
 * English is bundled (page-strings-en.ts). The other languages are static
 * assets (`/i18n/pages/<lang>.json`, copied from page-strings/ by the build),
 * read through the `ASSETS` binding on first use and kept in memory for the
 * isolate's life, so 47 languages cost the worker bundle nothing. Without
 * the binding, or when the file cannot be read, the page is English.
 */
import { fromAcceptLanguage, supportedLanguage, type Language } from '../../rules/language';
import { fill } from '../../rules/message';
import { PAGE_STRINGS_EN, type PageDictionary } from './page-strings-en';
import { errorName } from '../lib/errors';
import { log } from '../lib/log';

export type PageLang = Language;

export type PageStrings = Omit<PageDictionary, 'wrongCode'> & {
  /** The language these strings are in (English when the asked-for one could not be read). */
  lang: PageLang;
  /** After a wrong code, with `left` tries left. */
  wrongCode: (left: number) => string;
};

/** Where the build puts a language's page dictionary among the static assets. */
export const pageStringsPath = (lang: string) => `/i18n/pages/${lang}.json`;

const compile = (d: PageDictionary, lang: PageLang): PageStrings => ({
  ...d,
  lang,
  wrongCode: (n) => fill(d.wrongCode, { n }, lang),
});

const english = compile(PAGE_STRINGS_EN, 'en');
const cache = new Map<string, Promise<PageStrings>>([['en', Promise.resolve(english)]]);

/** Fetches the static asset of a language (or fails). */
export type AssetFetcher = { fetch: (input: string) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }> };

/**
 * The page strings of `lang`: from memory, else from the static assets, else
 * English (a failed read is not remembered, so the next page tries again).
 */
export function pageStrings(assets: AssetFetcher | undefined, lang: PageLang): Promise<PageStrings> {
  const hit = cache.get(lang);
  if (hit) return hit;
  if (!assets) return Promise.resolve(english);
  const loading = assets
    .fetch(new URL(pageStringsPath(lang), 'https://assets.invalid').href)
    .then(async (res) => {
      if (!res.ok) throw new Error(`page strings ${lang}: ${res.status}`);
      const json = (await res.json()) as { strings?: PageDictionary };
      const d = json.strings;
      // The build checked every file; a partial one (an old deployment's) is completed with English.
      if (!d || typeof d !== 'object') throw new Error(`page strings ${lang}: no strings`);
      return compile({ ...PAGE_STRINGS_EN, ...d }, lang);
    })
    .catch((err: unknown) => {
      cache.delete(lang);
      log.warn('page_strings_unavailable', { lang, error: errorName(err) });
      return english;
    });
  cache.set(lang, loading);
  return loading;
}

/** The page language: the widget's (`l`), else the phone's first supported `Accept-Language`, else English. */
export function pageLang(l: string | undefined, acceptLanguage: string | undefined): PageLang {
  return (l && supportedLanguage(l)) || fromAcceptLanguage(acceptLanguage) || 'en';
}

/** Languages written right to left (the page's `dir`). */
export const isRtl = (lang: string) => /^(ar|he|fa|ur)$/.test(lang);
