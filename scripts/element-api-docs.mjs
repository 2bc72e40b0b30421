#!/usr/bin/env node
// docs/element-api.md from custom-elements.json (which the build generates from
// the element's JSDoc): attributes, properties, events, slots, CSS parts and
// custom properties are written once, in the JSDoc, never by hand in the docs.
//   node scripts/element-api-docs.mjs           write docs/element-api.md
//   node scripts/element-api-docs.mjs --check   exit 1 when it is not up to date (npm test)
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './lib/generated.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'docs/element-api.md');

/** A table cell: one line, pipes escaped. */
const cell = (s) =>
  (s ?? '')
    .toString()
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
const code = (s) => (s ? '`' + cell(s).replace(/`/g, '') + '`' : '');

export function render(manifest) {
  const element = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.customElement && d.tagName);
  if (!element) throw new Error('custom-elements.json declares no custom element');
  const attributes = element.attributes ?? [];
  const byField = new Map(attributes.filter((a) => a.fieldName).map((a) => [a.fieldName, a]));
  const properties = (element.members ?? []).filter(
    (m) => m.kind === 'field' && !m.static && m.privacy !== 'private' && m.privacy !== 'protected' && !m.name.startsWith('_'),
  );
  const methods = (element.members ?? []).filter(
    (m) => m.kind === 'method' && !m.static && m.privacy !== 'private' && m.privacy !== 'protected' && !m.name.startsWith('_'),
  );
  const out = [];
  out.push(`# \`<${element.tagName}>\`: attributes, properties, events, slots, parts`);
  out.push('');
  out.push(
    `For: a partner's **front-end engineer** looking up the element's public API. Generated from \`custom-elements.json\` (itself generated from the element's JSDoc) by \`node scripts/element-api-docs.mjs\`; do not edit by hand. How to embed it: [embedding.md](embedding.md).`,
  );
  out.push('');
  if (element.summary || element.description) out.push(cell(element.summary || element.description), '');
  // The description's paragraphs after the first (that one the summary says): what applies without an attribute.
  const more = (element.summary ? (element.description ?? '').split(/\n\s*\n/).slice(1) : []).map(cell).filter(Boolean);
  if (more.length) out.push(...more.flatMap((p) => [p, '']));
  out.push('## Attributes', '');
  out.push('| attribute | property | type | default | meaning |', '|---|---|---|---|---|');
  for (const a of attributes)
    out.push(`| ${code(a.name)} | ${code(a.fieldName)} | ${code(a.type?.text)} | ${code(a.default)} | ${cell(a.description)} |`);
  out.push('', '## Properties', '');
  out.push('Properties without an attribute are set from script (`el.strings = { … }`). Read-only ones are marked.', '');
  out.push('| property | attribute | type | default | meaning |', '|---|---|---|---|---|');
  for (const p of properties) {
    const attr = byField.get(p.name)?.name ?? p.attribute;
    out.push(
      `| ${code(p.name)}${p.readonly ? ' (read-only)' : ''} | ${attr ? code(attr) : ''} | ${code(p.type?.text ?? byField.get(p.name)?.type?.text)} | ${code(p.default ?? byField.get(p.name)?.default)} | ${cell(p.description ?? byField.get(p.name)?.description)} |`,
    );
  }
  if (methods.length) {
    out.push('', '## Methods', '', '| method | meaning |', '|---|---|');
    for (const m of methods)
      out.push(`| ${code(`${m.name}(${(m.parameters ?? []).map((x) => x.name).join(', ')})`)} | ${cell(m.description)} |`);
  }
  out.push('', '## Events', '');
  out.push(
    'Every event bubbles and is composed (it crosses shadow roots); each is declared in `GlobalEventHandlersEventMap`, so listeners are typed.',
    '',
  );
  out.push('| event | type | meaning |', '|---|---|---|');
  for (const e of element.events ?? []) out.push(`| ${code(e.name)} | ${code(e.type?.text)} | ${cell(e.description)} |`);
  out.push('', '## Slots', '', '| slot | meaning |', '|---|---|');
  for (const s of element.slots ?? []) out.push(`| ${s.name ? code(s.name) : '(default)'} | ${cell(s.description)} |`);
  out.push('', '## CSS parts', '', 'Style them with `kyc-onboard::part(name) { … }`.', '', '| part | element |', '|---|---|');
  for (const p of element.cssParts ?? []) out.push(`| ${code(p.name)} | ${cell(p.description)} |`);
  if (element.cssStates?.length) {
    out.push('', '## Custom states', '', '| state | meaning |', '|---|---|');
    for (const s of element.cssStates) out.push(`| ${code(`:state(${s.name})`)} | ${cell(s.description)} |`);
  }
  out.push(
    '',
    '## CSS custom properties',
    '',
    'Each has a built-in default; set them on the element or an ancestor.',
    '',
    '| property | default | meaning |',
    '|---|---|---|',
  );
  for (const p of element.cssProperties ?? []) out.push(`| ${code(p.name)} | ${code(p.default)} | ${cell(p.description)} |`);
  out.push('');
  return out.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = render(JSON.parse(readFileSync(join(root, 'custom-elements.json'), 'utf8')));
  writeOrCheck(target, text, { root, source: "custom-elements.json (the element's JSDoc)", fix: 'npm run build:widget && npm run docs' });
}
