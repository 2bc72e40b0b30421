/**
 * Loads the dictionary of one language (`fr`, `pt-BR`, `zh-Hant`) on first
 * use: one computed import, not a table of imports, so the entry does not
 * grow with the number of languages. In the npm build this is a relative
 * template import (`./i18n/<code>.js`), which Vite, webpack and esbuild turn
 * into one chunk per dictionary. The self-contained bundle replaces this
 * module (scripts/build-widget.mjs): the build writes each dictionary beside
 * the entry as `kyc-onboard-<code>-<hash>.js` (one hash for the whole set,
 * so the entry names exact files) and this imports that URL. A language
 * without a dictionary fails to load, and the widget stays in English.
 */
import type { Strings } from './i18n/en.js';

/** A dictionary module: its default export is the dictionary. */
export type DictModule = { default: Strings };

export const loadDictionary = (code: string): Promise<DictModule> => import(`./i18n/${code}.js`);
