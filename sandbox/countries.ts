/**
 * Country codes: the spec wants ISO 3166-1 alpha-3 and says other forms are
 * converted. Accepts alpha-3, alpha-2, numeric and English names; anything
 * else is refused. The codes are i18n-iso-countries' table; the names come
 * from the runtime's own `Intl.DisplayNames` (workerd and Node carry ICU),
 * so no name list ships in the worker bundle.
 */
import codes from 'i18n-iso-countries/codes.json';

/** Common forms that are not ISO codes but mean one country without doubt. */
const ALIASES: Record<string, string> = { UK: 'GBR', EL: 'GRC' };

/** `[alpha-2, alpha-3, numeric, ISO 3166-2 prefix]` rows. */
const ROWS = codes as [string, string, string, string][];
const byAlpha2 = new Map(ROWS.map((r) => [r[0], r[1]]));
const alpha3s = new Set(ROWS.map((r) => r[1]));
const byNumeric = new Map(ROWS.map((r) => [r[2], r[1]]));

/** Case, accents and punctuation do not matter: "Côte d'Ivoire" = "cote d ivoire". */
const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

let byName: Map<string, string> | undefined;

/** English names (long and short forms) to alpha-3, built on first use. */
function names(): Map<string, string> {
  if (byName) return byName;
  byName = new Map();
  for (const style of ['long', 'short'] as const) {
    const dn = new Intl.DisplayNames(['en'], { type: 'region', style, fallback: 'none' });
    for (const [a2, a3] of byAlpha2) {
      const name = dn.of(a2);
      if (name && !byName.has(fold(name))) byName.set(fold(name), a3);
    }
  }
  return byName;
}

export function toAlpha3(value: string): string | undefined {
  const v = value.trim();
  if (!v) return undefined;
  const upper = v.toUpperCase();
  if (ALIASES[upper]) return ALIASES[upper];
  if (/^[A-Z]{3}$/.test(upper) && alpha3s.has(upper)) return upper;
  if (/^[A-Z]{2}$/.test(upper)) return byAlpha2.get(upper);
  if (/^\d{1,3}$/.test(v)) return byNumeric.get(v.padStart(3, '0'));
  return names().get(fold(v));
}
