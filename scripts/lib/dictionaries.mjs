// The dictionaries of the widget (widget/i18n/<code>.ts) and of the phone's pages
// (worker/handoff/page-strings-en.ts + worker/handoff/page-strings/<code>.json), loaded
// and checked. The build fails on any problem (scripts/build-widget.mjs runs the check):
//   - a language of rules/language.ts without a dictionary, or a dictionary of no such language;
//   - a key missing or extra (against English);
//   - a placeholder set that differs from English's (`{phone}`, `{seconds, plural, …}`);
//   - a plural without a form its language needs (Intl.PluralRules), or with a form it cannot use;
//   - an empty value;
//   - a value equal to English's, unless the allow-list (same-as-english.json, reviewed:
//     the words really are the same in that language) names that key with that value;
//   - a review status that is not one of REVIEW.
//   node scripts/lib/dictionaries.mjs      check, print the review status of each language
import { build } from 'esbuild';
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const at = (...p) => join(root, ...p);

/** The review states a dictionary can record. */
export const REVIEW = {
  source: 'the source language',
  'ai-drafted': 'AI-drafted, not yet reviewed by a native speaker',
  'native-reviewed': 'reviewed by a native speaker',
};

/** A TypeScript module of this repository, bundled and imported (the build scripts are plain JS). */
export async function importTs(file) {
  const out = await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    logLevel: 'silent',
    // A dictionary imports only types; lit and the like never belong here.
    external: ['lit', 'lit/*'],
  });
  const code = out.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}#${encodeURIComponent(file)}`);
}

const language = () => importTs(at('rules/language.ts'));
const message = () => importTs(at('rules/message.ts'));

/** The widget's dictionaries: `{ code, strings, review, file }`, English first. */
export async function widgetDictionaries(dir = at('widget/i18n')) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  const all = [];
  for (const f of files) {
    const m = await importTs(join(dir, f));
    all.push({ code: basename(f, '.ts'), strings: m.default, review: m.review, file: join(dir, f) });
  }
  return all.sort((a, b) => (a.code === 'en' ? -1 : b.code === 'en' ? 1 : a.code.localeCompare(b.code)));
}

/** The phone pages' dictionaries: English from TypeScript (it stays in the worker), the others JSON (static assets). */
export async function pageDictionaries(dir = at('worker/handoff/page-strings')) {
  const en = await importTs(at('worker/handoff/page-strings-en.ts'));
  const all = [{ code: 'en', strings: en.PAGE_STRINGS_EN, review: 'source', file: at('worker/handoff/page-strings-en.ts') }];
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'same-as-english.json')) {
    const json = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    all.push({ code: basename(f, '.json'), strings: json.strings, review: json.review, file: join(dir, f) });
  }
  return all;
}

/** `{ key: value }` with arrays spread into `key.0`, `key.1`: what is compared. */
const flatten = (o) =>
  Object.fromEntries(Object.entries(o ?? {}).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x, i) => [`${k}.${i}`, x]) : [[k, v]])));

/**
 * Problems with a set of dictionaries, as lines (`fr: key errName: …`). `sameAsEnglish` is the
 * reviewed allow-list: `{ code: { key: value } }`.
 */
export async function checkDictionaries(dicts, { sameAsEnglish = {}, what = 'dictionary' } = {}) {
  const { LANGUAGES } = await language();
  const { placeholders } = await message();
  const problems = [];
  const en = dicts.find((d) => d.code === 'en');
  if (!en) return [`${what}: no English dictionary`];
  const source = flatten(en.strings);
  const codes = dicts.map((d) => d.code);
  for (const l of LANGUAGES) if (!codes.includes(l)) problems.push(`${what} ${l}: missing (every language of rules/language.ts needs one)`);
  for (const d of dicts) {
    const say = (m) => problems.push(`${what} ${d.code}: ${m}`);
    if (!LANGUAGES.includes(d.code)) say('not a language of rules/language.ts');
    if (!(d.review in REVIEW) || (d.code === 'en') !== (d.review === 'source'))
      say(`review status ${JSON.stringify(d.review)} is not one of ${Object.keys(REVIEW).join(', ')}`);
    const own = flatten(d.strings);
    const allowed = sameAsEnglish[d.code] ?? {};
    for (const k of Object.keys(source)) if (!(k in own)) say(`key ${k} is missing`);
    for (const k of Object.keys(own)) if (!(k in source)) say(`key ${k} is not in English`);
    let categories = ['other'];
    try {
      categories = new Intl.PluralRules(d.code === 'pt' ? 'pt-PT' : d.code).resolvedOptions().pluralCategories;
    } catch {
      // a tag Intl cannot read: `other` alone
    }
    for (const [k, v] of Object.entries(own)) {
      if (!(k in source)) continue;
      if (typeof v !== 'string' || !v.trim()) {
        say(`key ${k} is empty`);
        continue;
      }
      const mine = placeholders(v);
      const theirs = placeholders(source[k]);
      if (mine.names.join() !== theirs.names.join())
        say(`key ${k} has placeholders {${mine.names.join('}, {')}}, English has {${theirs.names.join('}, {')}}`);
      for (const [name, forms] of Object.entries(mine.plurals)) {
        const cats = forms.filter((f) => !f.startsWith('='));
        for (const c of categories) if (!cats.includes(c)) say(`key ${k}: plural {${name}} lacks the form "${c}"`);
        for (const c of cats) if (!categories.includes(c)) say(`key ${k}: plural {${name}} has a form "${c}" ${d.code} does not use`);
      }
      if (d.code !== 'en' && v === source[k] && allowed[k] !== v)
        say(
          `key ${k} is the English text (${JSON.stringify(v)}): translate it, or add it to same-as-english.json if it really is the same`,
        );
    }
    for (const [k, v] of Object.entries(allowed))
      if (own[k] !== v || source[k] !== v) say(`same-as-english.json allows ${k} = ${JSON.stringify(v)}, which is no longer both texts`);
  }
  return problems;
}

/** The whole check, for both kinds of dictionary. Returns the problems (empty: all good). */
export async function checkAll() {
  const widget = await widgetDictionaries();
  const pages = await pageDictionaries();
  const allow = (f) => JSON.parse(readFileSync(f, 'utf8'));
  return [
    ...(await checkDictionaries(widget, { sameAsEnglish: allow(at('widget/i18n/same-as-english.json')), what: 'widget' })),
    ...(await checkDictionaries(pages, { sameAsEnglish: allow(at('worker/handoff/page-strings/same-as-english.json')), what: 'pages' })),
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = await checkAll();
  for (const p of problems) console.error(p);
  if (problems.length) process.exit(1);
  const widget = await widgetDictionaries();
  const count = {};
  for (const d of widget) count[d.review] = (count[d.review] ?? 0) + 1;
  const status = Object.entries(count).map(([r, n]) => `${n} ${REVIEW[r]}`);
  console.log(`[dictionaries] ${widget.length} languages, every key and placeholder in place (${status.join('; ')})`);
}
