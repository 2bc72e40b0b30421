// Small, line-based edits of wrangler.toml that keep every comment and the
// layout: `npm run setup` writes the ids it created and the vars it was given
// into `[env.production]`, and nothing else. (A TOML library would rewrite the
// whole file and drop the comments that explain it.)

/** The line range [start, end) of a table: its header line through the line before the next header. */
function tableAt(lines, header, where = () => true) {
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== header) continue;
    let end = i + 1;
    while (end < lines.length && !/^\s*\[/.test(lines[end])) end++;
    if (where(lines.slice(i + 1, end))) return [i, end];
  }
  return undefined;
}

const keyLine = (key) => new RegExp(`^\\s*${key}\\s*=`);

/** The string value of `key` in the table `header` (the first whose lines `where` accepts), or undefined. */
export function tomlValue(text, header, key, where) {
  const lines = text.split('\n');
  const at = tableAt(lines, header, where);
  if (!at) return undefined;
  const line = lines.slice(at[0] + 1, at[1]).find((l) => keyLine(key).test(l));
  const m = line && /=\s*"((?:[^"\\]|\\.)*)"/.exec(line);
  return m ? JSON.parse(`"${m[1]}"`) : undefined;
}

/**
 * `text` with `key = "value"` set in the table `header` (the first whose lines
 * `where` accepts): the key's line replaced, or a new line after the table's
 * last key (a new table at the end when there is none).
 */
export function setTomlValue(text, header, key, value, where) {
  const lines = text.split('\n');
  const line = `${key} = ${JSON.stringify(value)}`;
  const at = tableAt(lines, header, where);
  if (!at) {
    const tail = text.endsWith('\n') ? '' : '\n';
    return `${text}${tail}\n${header}\n${line}\n`;
  }
  const [start, end] = at;
  for (let i = start + 1; i < end; i++) {
    if (keyLine(key).test(lines[i])) {
      lines[i] = line;
      return lines.join('\n');
    }
  }
  let last = start;
  for (let i = start + 1; i < end; i++) if (/^\s*[A-Za-z0-9_"-]+\s*=/.test(lines[i])) last = i;
  lines.splice(last + 1, 0, line);
  return lines.join('\n');
}

/** For `where`: a table that binds `binding`. */
export const binds = (binding) => (lines) => lines.some((l) => new RegExp(`^\\s*binding\\s*=\\s*"${binding}"`).test(l));

/**
 * What `npm run setup` reads of an environment in wrangler.toml: its vars,
 * and its D1, queue and KV blocks (string values only). Much faster than
 * loading wrangler to read the file, and enough for these plain tables.
 */
export function environmentTables(text, env) {
  const out = { vars: {}, d1_databases: [], kv_namespaces: [], queues: { producers: [], consumers: [] } };
  let current;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const header = /^\[(\[)?([^\]]+)\]\]?$/.exec(line);
    if (header) {
      const name = header[2].trim();
      const table = { [`env.${env}.vars`]: out.vars }[name];
      const arrays = {
        [`env.${env}.d1_databases`]: out.d1_databases,
        [`env.${env}.kv_namespaces`]: out.kv_namespaces,
        [`env.${env}.queues.producers`]: out.queues.producers,
        [`env.${env}.queues.consumers`]: out.queues.consumers,
      };
      if (table) current = table;
      else if (header[1] && arrays[name]) arrays[name].push((current = {}));
      else current = undefined;
      continue;
    }
    const kv = /^([A-Za-z0-9_-]+)\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(line);
    if (current && kv) current[kv[1]] = JSON.parse(`"${kv[2]}"`);
  }
  return out;
}
