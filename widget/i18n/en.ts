import form from './en/form.js';
import run from './en/run.js';

/**
 * English strings, and the shape every translation must have. Placeholders in
 * braces (`{phone}`) are filled in by the widget. Partners override any of
 * these with the element's `strings` property. Written in two halves: the
 * form's strings travel in the widget's entry, the run's in its run chunk.
 */
const en = { ...form, ...run };

export type Strings = typeof en;
export default en;

/**
 * Who vouches for a dictionary's words: `source` (English), `ai-drafted` (translated
 * by an AI model, not yet reviewed by a native speaker) or `native-reviewed`.
 * docs/embedding.md lists every language with it.
 */
export type Review = 'source' | 'ai-drafted' | 'native-reviewed';
export const review: Review = 'source';
