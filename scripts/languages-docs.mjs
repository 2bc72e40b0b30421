#!/usr/bin/env node
// docs/embedding.md's language table and list of string keys (between their markers), generated from the
// dictionaries themselves: each language with its name, direction, date order and review status, and every key of
// the `strings` property with its English text. Never typed by hand, so it cannot drift from the code.
//   node scripts/languages-docs.mjs           rewrite the blocks
//   node scripts/languages-docs.mjs --check   exit 1 when they are not up to date (npm test, check:docs)
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importTs, pageDictionaries, widgetDictionaries } from './lib/dictionaries.mjs';
import { writeOrCheck } from './lib/generated.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'docs/embedding.md');

const { LANGUAGES, RTL_LANGUAGES, dateOrder } = await importTs(join(root, 'rules/language.ts'));

const widget = new Map((await widgetDictionaries()).map((d) => [d.code, d]));
const pages = new Map((await pageDictionaries()).map((d) => [d.code, d]));
const names = new Intl.DisplayNames(['en'], { type: 'language' });
const SHORT = {
  source: 'source',
  'ai-drafted': 'AI-drafted, not reviewed by a native speaker',
  'native-reviewed': 'reviewed by a native speaker',
};
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

function languageTable() {
  const rows = [
    '| tag | language | in its own words | direction | date of birth | widget | phone pages |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const code of LANGUAGES) {
    const own = new Intl.DisplayNames([code], { type: 'language' }).of(code);
    const order = dateOrder(code)
      .map((p) => p[0].toUpperCase())
      .join('-');
    const w = widget.get(code)?.review;
    const p = pages.get(code)?.review;
    rows.push(
      `| \`${code}\` | ${names.of(code)} | ${own} | ${RTL_LANGUAGES.includes(code) ? 'right to left' : 'left to right'} | ${order} | ${SHORT[w] ?? 'missing'} | ${SHORT[p] ?? 'missing'} |`,
    );
  }
  return rows.join('\n') + '\n';
}

function keyList() {
  const en = widget.get('en').strings;
  const rows = ['| key | English |', '|---|---|'];
  for (const [k, v] of Object.entries(en)) rows.push(`| \`${k}\` | ${cell(v)} |`);
  return rows.join('\n') + '\n';
}

const replaceBlock = (text, name, body) => {
  const re = new RegExp(`(<!-- ${name}:start[^>]*-->\\n)([\\s\\S]*?)(<!-- ${name}:end -->)`);
  if (!re.test(text)) throw new Error(`docs/embedding.md has no <!-- ${name}:start --> … <!-- ${name}:end --> block`);
  return text.replace(re, (_, start, _old, end) => start + body + end);
};

let text = readFileSync(target, 'utf8');
text = replaceBlock(text, 'languages', languageTable());
text = replaceBlock(text, 'string-keys', keyList());
writeOrCheck(target, text, { root, source: 'the dictionaries (widget/i18n, worker/handoff/page-strings)', fix: 'npm run docs' });
