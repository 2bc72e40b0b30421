/**
 * Loads the dictionary of one language (`fr`, `pt-BR`, `zh-Hant`) on first
 * use. This source form (a relative template import of `./i18n/<code>.js`)
 * serves the tests and `npm run dev`; the two builds replace it
 * (scripts/build-widget.mjs):
 *   - the self-contained bundle: one computed import of
 *     `./kyc-onboard-<code>-<hash>.js`, the files the build writes beside the
 *     entry (one hash for the whole set), so the entry does not grow with the
 *     number of languages;
 *   - the npm build: one literal import per language, which an app's bundler
 *     turns into a chunk each (a template import inside node_modules is left
 *     alone by Vite).
 * A language without a dictionary fails to load, and the widget stays in English.
 */
import type { Strings } from './i18n/en.js';

/** A dictionary module: its default export is the dictionary. */
export type DictModule = { default: Strings };

export const loadDictionary = (code: string): Promise<DictModule> => import(`./i18n/${code}.js`);
