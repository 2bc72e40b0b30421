#!/usr/bin/env node
// `npm start`: build the widget and the demo, then run the worker locally with
// `wrangler dev` (workerd), serving the demo at /, the widget at /widget.js,
// the API at /api and, while no vendor is configured, the sandbox at /sandbox.
//
//   PORT=8787 HOST=127.0.0.1 npm start      (both optional; these are the defaults)
//   STATE_DIR=/tmp/kyc npm start            where local state lives (default .wrangler/state)
//   INSPECTOR_PORT=9229 npm start           pins wrangler's devtools inspector (loopback only; default: any free port)
//   npm start -- --no-build                 skip the build (dist/public must exist)
//   npm run dev                             the same, rebuilding the widget and the demo on change
//
// No .dev.vars is needed: with KYC_BASE_URL unset the built-in sandbox is the
// vendor. Wrangler runs in its own process group; Ctrl-C (SIGINT), SIGTERM and
// SIGHUP stop that whole group, so no workerd is left behind.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { settingsFromEnvironment } from './lib/settings.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const watch = args.includes('--watch');
const build = !args.includes('--no-build');
const host = process.env.HOST || '127.0.0.1';
const port = Number(process.env.PORT || 8787);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`[start] PORT must be a port number, not ${JSON.stringify(process.env.PORT)}`);
  process.exit(2);
}

/** Keeps wrangler off the internet and quiet. */
const WRANGLER_ENV = {
  CI: 'true',
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
};

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
if (build) {
  const r = spawnSync(npm, ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('[start] the build failed; nothing was started.');
    process.exit(r.status ?? 1);
  }
} else if (!existsSync(join(root, 'dist/public/index.html')) || !existsSync(join(root, 'dist/public/widget.js'))) {
  console.error('[start] dist/public is not built: run `npm run build` (or `npm start` without --no-build).');
  process.exit(1);
}
mkdirSync(join(root, 'dist/public'), { recursive: true });

/** Child processes, each in its own process group. */
const children = [];
function launch(cmd, argv, opts = {}) {
  const child = spawn(cmd, argv, {
    cwd: root,
    detached: true, // own process group: we signal the group, which includes workerd / esbuild
    stdio: ['ignore', 'pipe', 'pipe'],
    ...opts,
    env: { ...process.env, ...WRANGLER_ENV, ...(opts.env ?? {}) },
  });
  children.push(child);
  return child;
}

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  const alive = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const c of alive) {
    try {
      process.kill(-c.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  const deadline = Date.now() + 5000;
  while (alive.some((c) => c.exitCode === null && c.signalCode === null) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const c of alive) {
    try {
      process.kill(-c.pid, 'SIGKILL'); // the group, in case workerd ignored SIGTERM
    } catch {
      /* already gone */
    }
  }
  process.exit(code);
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    if (!stopping) console.log(`\n[start] ${sig}: stopping the worker…`);
    void stop(0);
  });
}
// `npm start` killed on its own (SIGTERM to npm alone): npm and its shell go, this
// script is re-parented and never hears a signal. Notice that, and stop too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) {
    console.log('[start] the parent process is gone: stopping the worker…');
    void stop(0);
  }
}, 1000).unref();
process.on('exit', () => {
  // Last resort (an exception in this script): never leave a group running.
  for (const c of children) {
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
});

if (watch) {
  // Rebuild the widget bundle (straight into dist/public/widget.js, unminified)
  // and the demo on change; wrangler serves the new assets on the next request.
  const { context } = await import('esbuild');
  const ctx = await context({
    entryPoints: [join(root, 'widget/index.ts')],
    outfile: join(root, 'dist/public/widget.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    sourcemap: 'inline',
    tsconfig: join(root, 'widget/tsconfig.json'),
    logLevel: 'info',
  });
  await ctx.watch();
  process.on('exit', () => void ctx.dispose());
  const d = launch(process.execPath, [join(root, 'scripts/build-demo.mjs'), '--watch']);
  d.stdout.pipe(process.stdout);
  d.stderr.pipe(process.stderr);
}

const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

// Configuration from the environment, by the names of the configuration
// table (`WEBHOOK_URL=… npm start`, scripts/lib/settings.mjs): written to a private file for wrangler's
// --env-file (after .dev.vars, so the environment wins), never put on a
// command line, where the process list would show secrets.
const { applied, unusable, lines: settingLines } = settingsFromEnvironment(process.env);
if (unusable.length) console.warn(`[start] not applied (a value with ' or a newline; put it in .dev.vars): ${unusable.join(', ')}`);
const devVarsFile = join(root, '.dev.vars');
const devVarsText = existsSync(devVarsFile) ? readFileSync(devVarsFile, 'utf8') : '';
const setInDevVars = (name) => new RegExp(`^\\s*${name}\\s*=`, 'm').test(devVarsText);
// Local defaults: with the sandbox as the vendor, the worker asks it for a
// result every 5 s (the least allowed) instead of production's 30, so the
// demo's phone path shows the outcome promptly.
const sandboxVendor = !(process.env.KYC_BASE_URL ?? /^\s*KYC_BASE_URL\s*=\s*"?([^"\n]*)/m.exec(devVarsText)?.[1] ?? '')
  .trim()
  .replace(/^sandbox$/, '');
const localDefaults =
  sandboxVendor && process.env.RESULT_POLL_SECONDS === undefined && !setInDevVars('RESULT_POLL_SECONDS')
    ? { RESULT_POLL_SECONDS: '5' }
    : {};
const envFiles = [];
if (applied.length || Object.keys(localDefaults).length) {
  if (devVarsText) envFiles.push(devVarsFile);
  const dir = mkdtempSync(join(tmpdir(), 'kyc-start-'));
  const file = join(dir, 'env');
  const lines = [...Object.entries(localDefaults).map(([n, v]) => `${n}='${v}'`), ...settingLines];
  writeFileSync(file, lines.join('\n') + '\n', { mode: 0o600 });
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  envFiles.push(file);
  if (applied.length) console.log(`[start] settings from the environment: ${applied.join(', ')}`);
  if (localDefaults.RESULT_POLL_SECONDS)
    console.log('[start] local default: RESULT_POLL_SECONDS=5 (the sandbox is the vendor; production default 30)');
}

// The D1 schema (migrations/): wrangler applies what this state directory has not had yet.
{
  const r = spawnSync(
    join(root, 'node_modules/.bin/wrangler'),
    ['d1', 'migrations', 'apply', 'DB', '--local', ...(process.env.STATE_DIR ? ['--persist-to', process.env.STATE_DIR] : [])],
    { cwd: root, env: { ...process.env, ...WRANGLER_ENV }, encoding: 'utf8' },
  );
  if (r.status !== 0) {
    console.error(`[start] applying the D1 migrations failed:\n${r.stdout ?? ''}${r.stderr ?? ''}`);
    process.exit(1);
  }
}

const inspectorPort = process.env.INSPECTOR_PORT?.trim() || '0';
if (!/^\d{1,5}$/.test(inspectorPort) || Number(inspectorPort) > 65535) {
  console.error(`[start] INSPECTOR_PORT must be a port number (0 = any free port), not ${JSON.stringify(inspectorPort)}`);
  process.exit(2);
}

const wrangler = launch(join(root, 'node_modules/.bin/wrangler'), [
  'dev',
  '--ip',
  host,
  '--port',
  String(port),
  // wrangler's devtools inspector listens on loopback only; INSPECTOR_PORT pins its port (default: a free one).
  '--inspector-port',
  inspectorPort,
  // Where it listens: on anything but loopback, the worker opens nothing for "this machine" (worker/lib/local-client.ts).
  '--var',
  `LISTEN_HOST:${host}`,
  ...(process.env.STATE_DIR ? ['--persist-to', process.env.STATE_DIR] : []),
  ...envFiles.flatMap((f) => ['--env-file', f]),
]);

// wrangler reads KYC_BASE_URL from wrangler.toml, .dev.vars or --var; say which vendor that means.
const base = process.env.KYC_BASE_URL?.trim() || /^\s*KYC_BASE_URL\s*=\s*"?([^"\n]*)"?/m.exec(devVarsText)?.[1]?.trim();
// DEMO as the worker reads it (worker/config.ts): on by default while the sandbox is the vendor.
const demoSetting = (process.env.DEMO ?? /^\s*DEMO\s*=\s*"?([^"\n]*)/m.exec(devVarsText)?.[1] ?? '').trim().toLowerCase();
const demoOn = ['on', 'true', '1'].includes(demoSetting) || (!['off', 'false', '0'].includes(demoSetting) && sandboxVendor);
const vendor =
  base && base !== 'sandbox'
    ? `${base} (from ${process.env.KYC_BASE_URL ? 'the environment' : '.dev.vars'})`
    : `the built-in sandbox (${url}/sandbox/…)`;
// The versioned entry and its SRI hash, as the build wrote them (scripts/build-package.mjs).
let pinned;
try {
  pinned = JSON.parse(readFileSync(join(root, 'dist/public/widget-integrity.json'), 'utf8'));
} catch {
  pinned = undefined;
}
let announced = false;
let portInUse = false;
function onOutput(chunk, stream) {
  stream.write(chunk);
  if (/Address already in use/.test(String(chunk))) portInUse = true;
  if (!announced && /Ready on/.test(String(chunk))) {
    announced = true;
    const line = '─'.repeat(60);
    console.log(`\n${line}
  kyc-onboard is running${watch ? ' (watching widget/ and demo/)' : ''}

  ${demoOn ? `Demo          ${url}/` : `Home          ${url}/   (a plain page: DEMO is off)`}
  Widget        ${url}/widget.js${pinned ? `\n  Pinned        ${url}${pinned.path}\n                integrity="${pinned.integrity}"` : ''}
  API           ${url}/api   (health: ${url}/api/ruok)
  Operations    ${url}/ops   (npm run ops -- funnel)
  Vendor        ${vendor}

  Press Ctrl-C to stop.
${line}\n`);
  }
}
wrangler.stdout.on('data', (c) => onOutput(c, process.stdout));
wrangler.stderr.on('data', (c) => onOutput(c, process.stderr));
wrangler.on('exit', (code, signal) => {
  if (stopping) return;
  console.error(`[start] wrangler exited (${signal ?? `code ${code}`}).`);
  if (portInUse)
    console.error(`[start] ${host}:${port} is taken (another \`npm start\`?). Stop it, or pick another port: PORT=${port + 1} npm start`);
  void stop(code || 1);
});
