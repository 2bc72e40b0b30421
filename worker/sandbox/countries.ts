/**
 * Country codes: the spec wants ISO 3166-1 alpha-3 and says other forms are
 * converted. Accepts alpha-3, alpha-2, numeric and English names (only the
 * `en` locale is registered, to keep the bundle small); anything else is refused.
 */
import countries from 'i18n-iso-countries/index.js';
import en from 'i18n-iso-countries/langs/en.json';

countries.registerLocale(en);

/** Common forms that are not ISO codes but mean one country without doubt. */
const ALIASES: Record<string, string> = { UK: 'GBR', EL: 'GRC' };

export function toAlpha3(value: string): string | undefined {
  const v = value.trim();
  if (!v) return undefined;
  const upper = v.toUpperCase();
  if (ALIASES[upper]) return ALIASES[upper];
  if (/^[A-Z]{3}$/.test(upper)) return countries.alpha3ToAlpha2(upper) ? upper : undefined;
  if (/^[A-Z]{2}$/.test(upper)) return countries.alpha2ToAlpha3(upper);
  if (/^\d{1,3}$/.test(v)) return countries.numericToAlpha3(v.padStart(3, '0'));
  return countries.getAlpha3Code(v, 'en');
}
