#!/usr/bin/env node
// A stand-in for `wrangler` that talks to no Cloudflare: it keeps an account
// (D1 databases, queues, KV namespaces and keys, the worker's secrets) in the
// JSON file FAKE_WRANGLER_STATE, and appends each call (its arguments, and
// whether it read standard input) to FAKE_WRANGLER_LOG, one JSON line each.
// Only the commands `npm run setup` and `npm run deploy` use, with wrangler
// 4's output shapes. test/worker/setup-script.test.ts puts it on PATH as
// `wrangler`. A secret's value is kept in the state file (a temporary
// directory of the test) so the test can check its form.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';

const args = process.argv.slice(2);
const statePath = process.env.FAKE_WRANGLER_STATE;
const logPath = process.env.FAKE_WRANGLER_LOG;
if (!statePath || !logPath) {
  console.error('fake wrangler: FAKE_WRANGLER_STATE and FAKE_WRANGLER_LOG must be set');
  process.exit(2);
}
const state = existsSync(statePath)
  ? JSON.parse(readFileSync(statePath, 'utf8'))
  : { d1: [], queues: [], kv: [], kvKeys: {}, secrets: {}, migrationsApplied: 0 };
const stdin = process.stdin.isTTY ? '' : readFileSync(0, 'utf8');
appendFileSync(logPath, `${JSON.stringify({ args, stdin: stdin.length > 0 })}\n`);
const save = () => writeFileSync(statePath, JSON.stringify(state, null, 2));
const fail = (msg) => {
  console.error(`✘ [ERROR] ${msg}`);
  process.exit(1);
};
const positional = args.filter(
  (a, i) => !a.startsWith('--') && !(i > 0 && /^--(env|config|format|namespace-id|binding|prefix)$/.test(args[i - 1])),
);
const flag = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const [a, b, c, d] = positional;

if (a === 'd1' && b === 'list') {
  console.log(
    JSON.stringify(state.d1.map(({ uuid, name }) => ({ uuid, name, created_at: '2026-01-01T00:00:00Z', version: 'production' }))),
  );
} else if (a === 'd1' && b === 'create') {
  if (state.d1.some((db) => db.name === c)) fail(`A database with that name already exists [code: 7502]`);
  const uuid = randomUUID();
  state.d1.push({ uuid, name: c });
  save();
  console.log(`✅ Successfully created DB '${c}'\n\n[[d1_databases]]\nbinding = "DB"\ndatabase_name = "${c}"\ndatabase_id = "${uuid}"`);
} else if (a === 'd1' && b === 'migrations' && c === 'apply') {
  if (!args.includes('--remote')) fail('fake wrangler: migrations only with --remote here');
  state.migrationsApplied++;
  save();
  console.log('✅ Migrations applied (fake)');
} else if (a === 'queues' && b === 'info') {
  if (!state.queues.includes(c)) fail(`Queue "${c}" does not exist. To create it, run: wrangler queues create ${c}`);
  console.log(`Queue Name: ${c}`);
} else if (a === 'queues' && b === 'create') {
  if (state.queues.includes(c)) fail(`A queue with this name already exists`);
  state.queues.push(c);
  save();
  console.log(`✅ Created queue '${c}'`);
} else if (a === 'kv' && b === 'namespace' && c === 'list') {
  console.log(JSON.stringify(state.kv, null, '  '));
} else if (a === 'kv' && b === 'namespace' && c === 'create') {
  if (state.kv.some((n) => n.title === d)) fail(`A KV namespace with the title "${d}" already exists.`);
  const id = randomUUID().replaceAll('-', '');
  state.kv.push({ id, title: d });
  save();
  console.log(`🌀 Creating namespace with title "${d}"\n✨ Success!`);
} else if (a === 'kv' && b === 'key' && c === 'put') {
  const ns = flag('--namespace-id') ?? `binding:${flag('--binding')}`;
  state.kvKeys[`${ns}/${d}`] = positional[4];
  save();
} else if (a === 'kv' && b === 'key' && c === 'list') {
  const ns = flag('--namespace-id') ?? `binding:${flag('--binding')}`;
  const prefix = flag('--prefix') ?? '';
  console.log(
    JSON.stringify(
      Object.keys(state.kvKeys)
        .filter((k) => k.startsWith(`${ns}/${prefix}`))
        .map((k) => ({ name: k.slice(ns.length + 1) })),
    ),
  );
} else if (a === 'secret' && b === 'list') {
  console.log(JSON.stringify(Object.keys(state.secrets).map((name) => ({ name, type: 'secret_text' }))));
} else if (a === 'secret' && b === 'put') {
  if (!stdin) fail('fake wrangler: the value must come on standard input');
  state.secrets[c] = stdin;
  save();
  console.log(`✨ Success! Uploaded secret ${c}`);
} else {
  fail(`fake wrangler: unsupported command: ${args.join(' ')}`);
}
