/**
 * Dictionary strings with placeholders, for the widget (in its run chunk) and
 * the phone's pages. Two forms, a subset of ICU MessageFormat:
 *   `{phone}`                                        the value, as given
 *   `{seconds, plural, one {# second} other {# seconds}}`
 *       the form `Intl.PluralRules` picks for the number in the language
 *       (`zero one two few many other`, or an exact `=0`), `#` = the number;
 *       `other` is the fallback, so every plural must have it.
 * The build's dictionary check (scripts/lib/dictionaries.mjs) holds every
 * translation to English's placeholders and to its language's plural forms.
 */

/** One placeholder, plain or plural (a capture group: `split` keeps them). */
const TOKEN = /(\{\w+(?:,\s*plural\s*,(?:\s*(?:=\d+|\w+)\s*\{[^{}]*\})+\s*)?\})/;
const FORM = /(=\d+|\w+)\s*\{([^{}]*)\}/g;

/** The language whose plural rules a dictionary follows (`pt` is the European one; CLDR's `pt` is Brazil's). */
const pluralLocale = (lang: string) => (lang == 'pt' ? 'pt-PT' : lang);

/**
 * `s` with its placeholders filled, as parts: text, and the values as given
 * (a template stays a template). A placeholder without a value stays as written.
 */
export function fillParts(s: string, vars: Record<string, unknown>, lang: string): unknown[] {
  return s.split(TOKEN).map((part, i) => {
    if (i % 2 == 0) return part;
    const name = /\w+/.exec(part)![0];
    if (!(name in vars)) return part;
    const value = vars[name];
    if (!part.includes(',')) return value;
    const n = Number(value);
    const forms = new Map([...part.slice(part.indexOf('plural') + 6).matchAll(FORM)].map((m) => [m[1]!, m[2]!]));
    let category = 'other';
    try {
      category = new Intl.PluralRules(pluralLocale(lang)).select(n);
    } catch {
      // Not a language Intl knows: `other`.
    }
    const form = forms.get(`=${n}`) ?? forms.get(category) ?? forms.get('other') ?? '';
    return form.replace(/#/g, String(value));
  });
}

/** `s` with its placeholders filled, as text. */
export const fill = (s: string, vars: Record<string, string | number>, lang: string): string => fillParts(s, vars, lang).join('');

/** The placeholder names in `s` (plain and plural), and each plural's forms: what a translation must keep. */
export function placeholders(s: string): { names: string[]; plurals: Record<string, string[]> } {
  const names: string[] = [];
  const plurals: Record<string, string[]> = {};
  s.split(TOKEN).forEach((part, i) => {
    if (i % 2 == 0) return;
    const name = /\w+/.exec(part)![0];
    names.push(name);
    if (part.includes(',')) plurals[name] = [...part.slice(part.indexOf('plural') + 6).matchAll(FORM)].map((m) => m[1]!);
  });
  return { names: [...new Set(names)].sort(), plurals };
}
