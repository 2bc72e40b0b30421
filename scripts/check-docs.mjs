#!/usr/bin/env node
// `npm test`'s documentation check. Fails on:
//   - a relative link in README.md, CHANGELOG.md, SECURITY.md or docs/ (and
//     examples/ READMEs) to a file that does not exist, or to a heading
//     (`#anchor`) that the target page does not have;
//   - any link to `shared/` (not part of the repository), out of the repository,
//     or to another site (https:, mailto:): the docs stand on their own;
//   - a docs/ page whose first line after its title does not name its reader ("For …");
//   - a README longer than 200 lines (it serves a partner's first screen; the rest lives in docs/);
//   - a `wrangler secret put` (or `wrangler d1 migrations apply … --remote`)
//     without `--env`: it would act on the local stack's worker, not on
//     production's (`--env production`), and the deployment would miss it.
// A small script rather than a package: the well-kept checkers
// (markdown-link-check, lychee) fetch external links (CI has no network but
// the npm registry) or need a binary.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const README_MAX_LINES = 200;

function markdownIn(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? markdownIn(join(dir, d.name)) : d.name.endsWith('.md') ? [join(dir, d.name)] : [],
  );
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
export function anchorsOf(text) {
  const seen = new Map();
  const anchors = new Set();
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = m[1]
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n ? `${slug}-${n}` : slug);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

/** Link targets in markdown text, outside code: [text](target), ![alt](target), <a href>, <img src>, [ref]: target. */
export function linksOf(text) {
  const links = [];
  let fence = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) return;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ target: m[1], line: i + 1 });
    for (const m of prose.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)="([^"]+)"/g)) links.push({ target: m[1], line: i + 1 });
    const ref = /^\s*\[[^\]]+\]:\s*(\S+)/.exec(prose);
    if (ref) links.push({ target: ref[1], line: i + 1 });
  });
  return links;
}

/** Commands that act on Cloudflare's copy of one worker: without `--env` they miss production's. */
const ENV_COMMANDS = [/wrangler secret put\b/g, /wrangler d1 migrations apply\b(?=[^`\n]*--remote)/g];

/**
 * Each `wrangler secret put` (and remote migration) in markdown or a
 * commented example file without `--env`: the command is read to its end,
 * the closing backtick of inline code (across a wrapped line), or the end of
 * the line in a code block (with `\` continuations).
 */
export function commandsWithoutEnv(text) {
  const found = [];
  const lines = text.split('\n');
  let fence = false;
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    for (const re of ENV_COMMANDS) {
      for (const m of line.matchAll(re)) {
        let command = line.slice(m.index);
        let j = i;
        if (fence) {
          while (command.trimEnd().endsWith('\\') && j + 1 < lines.length) command += ` ${lines[++j]}`;
        } else {
          const before = line.slice(0, m.index);
          const inCode = (before.match(/`/g) ?? []).length % 2 === 1;
          if (inCode) {
            while (!command.includes('`') && j + 1 < lines.length && j < i + 3) command += ` ${lines[++j].trim()}`;
            command = command.slice(0, command.indexOf('`') === -1 ? undefined : command.indexOf('`'));
          }
        }
        command = command.replace(/\s+#.*$/, '');
        if (!/--env[ =]\S/.test(command)) found.push({ line: i + 1, command: command.trim().slice(0, 80) });
      }
    }
  });
  return found;
}

export function check() {
  const problems = [];
  const files = [
    ...['README.md', 'CHANGELOG.md', 'SECURITY.md'].map((f) => join(root, f)).filter(existsSync),
    ...markdownIn(join(root, 'docs')),
    ...markdownIn(join(root, 'examples')),
    ...markdownIn(join(root, 'packages')).filter((f) => !f.includes('node_modules') && !f.includes('/dist/')),
  ];
  for (const file of files) {
    const rel = relative(root, file);
    const text = readFileSync(file, 'utf8');
    for (const { target, line } of linksOf(text)) {
      const where = `${rel}:${line}`;
      if (/(^|\/)shared\//.test(target)) {
        problems.push(`${where}: links to shared/ (${target}), which is not part of the repository`);
        continue;
      }
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) {
        // The docs stand on their own (no link to anything outside the repository).
        problems.push(`${where}: links outside the repository (${target}); name the thing instead`);
        continue;
      }
      const [pathPart, anchor] = target.split('#');
      const path = decodeURIComponent(pathPart.split('?')[0]);
      const dest = path ? resolve(dirname(file), path) : file;
      if (relative(root, dest).startsWith('..')) {
        problems.push(`${where}: links out of the repository (${target})`);
        continue;
      }
      if (!existsSync(dest)) {
        problems.push(`${where}: dead link ${target} (no ${relative(root, dest)})`);
        continue;
      }
      if (
        anchor &&
        dest.endsWith('.md') &&
        statSync(dest).isFile() &&
        !anchorsOf(readFileSync(dest, 'utf8')).has(decodeURIComponent(anchor).toLowerCase())
      ) {
        problems.push(`${where}: dead anchor ${target} (${relative(root, dest)} has no heading #${anchor})`);
      }
    }
  }
  for (const file of markdownIn(join(root, 'docs'))) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const title = lines.findIndex((l) => /^#\s/.test(l));
    const first = lines.slice(title + 1).find((l) => l.trim() !== '') ?? '';
    if (title !== 0 || !/^[*_]*For\b/.test(first.trim()))
      problems.push(`${relative(root, file)}: the first line after its title must name its reader ("For …")`);
  }
  for (const file of [...files, join(root, '.dev.vars.example')].filter(existsSync)) {
    for (const { line, command } of commandsWithoutEnv(readFileSync(file, 'utf8')))
      problems.push(
        `${relative(root, file)}:${line}: \`${command}\` has no --env: it would act on the local stack's worker; production is \`--env production\``,
      );
  }
  const readmeLines = readFileSync(join(root, 'README.md'), 'utf8').split('\n').length;
  if (readmeLines > README_MAX_LINES)
    problems.push(`README.md: ${readmeLines} lines, more than ${README_MAX_LINES} (move the detail into a docs/ page)`);
  return { problems, files: files.length };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { problems, files } = check();
  if (problems.length) {
    for (const p of problems) console.error(`✘ ${p}`);
    console.error(`\n${problems.length} documentation problem(s) in ${files} files.`);
    process.exit(1);
  }
  console.log(
    `docs: ${files} markdown files, every relative link and anchor resolves, no link to shared/, every docs page names its reader, every wrangler secret put names its --env`,
  );
}
