// temporary (not committed): /tmp/tr/<code>.json {w, p} -> widget/i18n/<code>.ts + worker/handoff/page-strings/<code>.json
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
const root = '/work/h26';
const only = process.argv.slice(2);
for (const f of readdirSync('/tmp/tr').filter((f) => f.endsWith('.json'))) {
  const code = f.slice(0, -5);
  if (only.length && !only.includes(code)) continue;
  const { w, p } = JSON.parse(readFileSync(`/tmp/tr/${f}`, 'utf8'));
  const v = code.replace(/-(\w)/g, (_, c) => c.toUpperCase()).replace(/^(is|in)$/, '$1_');
  if (w) {
    const body = Object.entries(w).map(([k, s]) => `  ${k}: ${JSON.stringify(s)},`).join('\n');
    writeFileSync(
      `${root}/widget/i18n/${code}.ts`,
      `import type { Review, Strings } from './en.js';\n\n/** AI-drafted, not yet reviewed by a native speaker. */\nexport const review: Review = 'ai-drafted';\n\nconst ${v}: Strings = {\n${body}\n};\nexport default ${v};\n`,
    );
  }
  if (p) writeFileSync(`${root}/worker/handoff/page-strings/${code}.json`, JSON.stringify({ review: 'ai-drafted', strings: p }, null, 2) + '\n');
  console.log('wrote', code);
}
