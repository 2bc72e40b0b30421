/**
 * A partner's front end, for real: the packed widget installed into a fresh
 * Vite + React app and a fresh Vite + Vue app that this test writes (their
 * dependencies come from the npm registry, through a local npm cache so a
 * second run is fast). In each: the type checker fails on a typo in an event
 * detail and passes without it; `vite build` succeeds; importing the package
 * in node (SSR) throws nothing. The built React app then completes the
 * redirect flow in Chromium against `npm start`'s worker.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../support/wrangler';
import { until } from '../support/wait';
import { ALICE, assertStopped, fillForm, freePort, openBrowser, submit, waitForState } from '../e2e/helpers';
import { packWidget, type Packed } from './support';

const run = promisify(execFile);
/** Where the apps' dependencies are cached between runs (inside node_modules: never committed). */
const NPM_CACHE = process.env.KYC_PACKAGE_NPM_CACHE ?? join(ROOT, 'node_modules/.cache/kyc-package-npm');

let packed: Packed;
let work: string;
before(() => {
  packed = packWidget();
  work = mkdtempSync(join(tmpdir(), 'kyc-apps-'));
});
after(() => {
  packed?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

/** `npm install` of a fresh app from the registry (and the tarball); how long it took, in seconds. */
async function install(dir: string): Promise<number> {
  const started = Date.now();
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--cache', NPM_CACHE, '--loglevel', 'error'], {
    cwd: dir,
    maxBuffer: 16 << 20,
    timeout: 600_000,
  });
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  console.log(`# npm install of ${dir.split('/').pop()}: ${seconds} s`);
  return seconds;
}

/** Runs a command in `dir`; resolves with its exit code and output (never throws on a non-zero exit). */
async function attempt(dir: string, cmd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(cmd, args, { cwd: dir, maxBuffer: 16 << 20, timeout: 300_000, ...(env ? { env } : {}) });
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

const bin = (dir: string, name: string) => join(dir, 'node_modules/.bin', name);

/** Node importing the package's entries, as a server build would (no DOM). */
async function ssrImport(dir: string, entries: string[]): Promise<void> {
  const script = `for (const e of ${JSON.stringify(entries)}) await import(e); if (globalThis.customElements?.get('kyc-onboard')) throw new Error('defined on the server'); console.log('ssr ok');`;
  const r = await attempt(dir, process.execPath, ['--input-type=module', '-e', script]);
  assert.equal(r.code, 0, `importing ${entries.join(', ')} in node throws nothing:\n${r.out}`);
  assert.match(r.out, /ssr ok/);
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
};

/** Serves a built app's dist/ on 127.0.0.1 (a partner's site on its own origin); unknown paths get index.html. */
async function serveDir(dir: string, port: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = join(dir, path === '/' ? 'index.html' : path);
    const target = file.startsWith(dir) && existsSync(file) && extname(file) ? file : join(dir, 'index.html');
    res
      .writeHead(200, { 'content-type': MIME[extname(target)] ?? 'application/octet-stream', 'cache-control': 'no-store' })
      .end(readFileSync(target));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((ok) => (sockets.forEach((s) => s.destroy()), server.close(() => ok()))),
  };
}

/** `npm start` (scripts/start.mjs, built already) with settings from the environment, until it says it is running. */
async function npmStart(env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const state = mkdtempSync(join(tmpdir(), 'kyc-start-'));
  const child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--no-build'], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', STATE_DIR: state },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const up = await until(() => out.includes('Press Ctrl-C to stop') || child.exitCode !== null, {
    what: 'npm start to come up',
    timeoutMs: 60_000,
  }).then(
    () => child.exitCode === null,
    () => false,
  );
  if (!up) {
    child.kill('SIGKILL');
    throw new Error(`npm start did not come up:\n${out.slice(-2000)}`);
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
      rmSync(state, { recursive: true, force: true });
      await assertStopped(url);
    },
  };
}

const REACT_VERIFY = (detail: string) => `import { useState } from 'react';
import { KycOnboard } from 'kyc-onboard/react';

/** The widget as a React component, its outcome shown once kyc-complete arrives. */
export function Verify({ endpoint }: { endpoint: string }) {
  const [outcome, setOutcome] = useState('');
  return (
    <section>
      <KycOnboard endpoint={endpoint} customerRef="acct-react-1"
        onKycComplete={(e) => setOutcome(e.detail.checkStatus + (e.detail.${detail} ? ' (token received)' : ''))} />
      <p role="status" data-testid="outcome">{outcome}</p>
    </section>
  );
}

/** The raw tag, typed by the same entry's JSX declarations. */
export const Raw = () => <kyc-onboard endpoint="/api" customer-ref="acct-raw" theme="dark" sms />;
`;

describe('the packed widget in fresh apps', { concurrency: false }, () => {
  it(
    'Vite + React: tsc catches an event-detail typo, vite build succeeds, SSR import is safe, and the built app completes the redirect flow',
    { timeout: 900_000 },
    async () => {
      const app = join(work, 'react-app');
      write(app, {
        'package.json': JSON.stringify(
          {
            name: 'fresh-react-app',
            private: true,
            type: 'module',
            dependencies: { 'kyc-onboard': `file:${packed.tarball}`, react: '19.3.1', 'react-dom': '19.3.1', '@lit/react': '1.0.8' },
            devDependencies: {
              vite: '8.3.8',
              '@vitejs/plugin-react': '6.3.0',
              typescript: '5.9.3',
              '@types/react': '19.3.0',
              '@types/react-dom': '19.3.0',
            },
          },
          null,
          2,
        ),
        'tsconfig.json': JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            lib: ['ES2022', 'DOM', 'DOM.Iterable'],
            module: 'ESNext',
            moduleResolution: 'bundler',
            jsx: 'react-jsx',
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: [],
          },
          include: ['src'],
        }),
        'vite.config.ts': `import { defineConfig } from 'vite';\nimport react from '@vitejs/plugin-react';\nexport default defineConfig({ plugins: [react()], logLevel: 'warn' });\n`,
        'index.html': `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Fresh React app</title></head>\n<body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>\n`,
        'src/main.tsx': `import { StrictMode } from 'react';\nimport { createRoot } from 'react-dom/client';\nimport { Verify } from './Verify';\n\nconst endpoint = new URLSearchParams(location.search).get('endpoint') ?? '/api';\ncreateRoot(document.getElementById('root')!).render(<StrictMode><h1>Open an account</h1><Verify endpoint={endpoint} /></StrictMode>);\n`,
        'src/Verify.tsx': REACT_VERIFY('resultTokn'),
      });
      await install(app);

      const typo = await attempt(app, bin(app, 'tsc'), ['-p', '.']);
      assert.notEqual(typo.code, 0, 'tsc fails on the typo');
      assert.match(typo.out, /resultTokn/, typo.out);
      write(app, { 'src/Verify.tsx': REACT_VERIFY('resultToken') });
      const clean = await attempt(app, bin(app, 'tsc'), ['-p', '.']);
      assert.equal(clean.code, 0, `tsc passes without the typo (and the package's .d.ts compile without skipLibCheck):\n${clean.out}`);

      const build = await attempt(app, bin(app, 'vite'), ['build']);
      assert.equal(build.code, 0, `vite build:\n${build.out}`);
      assert.ok(existsSync(join(app, 'dist/index.html')));
      // The package's one computed dictionary import: the app's bundler makes each language a chunk of its own.
      const assets = readdirSync(join(app, 'dist/assets'));
      for (const l of ['de', 'ja', 'zh-Hant', 'pt-BR'])
        assert.ok(
          assets.some((f) => f.startsWith(`${l}-`) && f.endsWith('.js')),
          `${l}: ${assets.join(' ')}`,
        );
      await ssrImport(app, ['kyc-onboard', 'kyc-onboard/react', 'kyc-onboard/element']);

      // The built app on its own origin, the worker from `npm start` with that origin on ALLOWED_ORIGINS.
      const sitePort = await freePort();
      const site = await serveDir(join(app, 'dist'), sitePort);
      const worker = await npmStart({ ALLOWED_ORIGINS: site.url });
      const browser = await openBrowser();
      try {
        const { page } = browser;
        await page.goto(`${site.url}/?endpoint=${encodeURIComponent(`${worker.url}/api`)}`);
        await page.getByRole('heading', { name: 'Open an account' }).waitFor();
        await waitForState(page, 'idle');
        await fillForm(page, ALICE);
        await submit(page);
        await page.waitForURL(new RegExp(`^${worker.url}/sandbox/flow/`));
        await page.getByRole('button', { name: 'Complete verification' }).click();
        await page.waitForURL((u) => u.origin === site.url);
        await waitForState(page, 'complete');
        // React's onKycComplete prop received the event, with a token.
        await page.getByTestId('outcome').getByText('CHECKED_SUCCESS_CLEAR (token received)').waitFor();
        assert.deepEqual(browser.problems, []);
      } finally {
        await browser.close();
        await worker.stop();
        await site.stop();
      }
    },
  );

  it(
    'examples/react-app (React + TypeScript, server-first): tsc and vite build pass, and it completes a whole verification with examples/partner-backend',
    { timeout: 900_000 },
    async () => {
      // The example as it is in the repository, with the packed widget in place of the repository's build.
      const app = join(work, 'react-example');
      cpSync(join(ROOT, 'examples/react-app'), app, { recursive: true, filter: (f) => !/(node_modules|dist)$/.test(f) });
      const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
      manifest.dependencies['kyc-onboard'] = `file:${packed.tarball}`;
      write(app, { 'package.json': JSON.stringify(manifest, null, 2) });
      await install(app);
      const types = await attempt(app, bin(app, 'tsc'), ['-p', '.']);
      assert.equal(types.code, 0, `tsc:\n${types.out}`);

      const serverKey = `kyc_sk_${randomBytes(32).toString('base64url')}`;
      const backendPort = await freePort();
      const partner = `http://127.0.0.1:${backendPort}`;
      // The worker first: the app is built for its origin (VITE_KYC_WORKER).
      const worker = await npmStart({ ALLOWED_ORIGINS: partner, PARTNER_SERVER_KEYS: serverKey });
      let backend: ReturnType<typeof spawn> | undefined;
      const browser = await openBrowser();
      try {
        const build = await attempt(app, bin(app, 'vite'), ['build'], { ...process.env, VITE_KYC_WORKER: worker.url });
        assert.equal(build.code, 0, `vite build:\n${build.out}`);
        const b = spawn(process.execPath, [join(ROOT, 'examples/partner-backend/server.mjs')], {
          cwd: ROOT,
          env: {
            ...process.env,
            KYC_WORKER: worker.url,
            PORT: String(backendPort),
            KYC_SERVER_KEY: serverKey,
            KYC_TEST_MODE: '1',
            KYC_APP_DIR: join(app, 'dist'),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        backend = b;
        await new Promise<void>((ok, fail) => {
          b.stdout.on('data', (d) => String(d).includes('partner backend on') && ok());
          b.once('exit', (code) => fail(new Error(`backend exited ${code}`)));
        });
        const { page } = browser;
        await page.goto(partner + '/');
        await page.getByRole('heading', { name: 'Open your account' }).waitFor();
        await waitForState(page, 'idle');
        // The account's prefill, from the partner's server through React props.
        await page.waitForFunction(
          () =>
            document.querySelector('kyc-onboard')?.shadowRoot?.querySelector<HTMLInputElement>('input[name="familyName"]')?.value ===
            'Lovelace',
        );
        // The country code follows the browser's region (en-US here): an Australian number says so.
        await fillForm(page, { countryCode: '+61', mobileNumber: '412 345 678', consent: true });
        await submit(page);
        await page.waitForURL(new RegExp(`^${worker.url}/sandbox/flow/`));
        await page.getByRole('button', { name: 'Complete verification' }).click();
        await page.waitForURL((u) => u.origin === partner);
        await waitForState(page, 'complete');
        await page.getByTestId('server-says').getByText('Server verified: CHECKED_SUCCESS_CLEAR, matches the account').waitFor();
        // Server-first and resumed: the way back made no second verification.
        const list = (await (
          await fetch(`${worker.url}/v1/verifications`, { headers: { Authorization: `Bearer ${serverKey}` } })
        ).json()) as {
          data: unknown[];
        };
        assert.equal(list.data.length, 1, 'one verification, no orphan');
        assert.deepEqual(browser.problems, []);
      } finally {
        await browser.close();
        backend?.kill('SIGTERM');
        await worker.stop();
      }
    },
  );

  it('Vite + Vue: vue-tsc catches an event-detail typo, vite build succeeds, SSR import is safe', { timeout: 900_000 }, async () => {
    const app = join(work, 'vue-app');
    const component = (detail: string) => `<script setup lang="ts">
import 'kyc-onboard/vue';
import { ref } from 'vue';
const outcome = ref('');
</script>

<template>
  <kyc-onboard endpoint="/api" customer-ref="acct-vue-1" sms @kyc-complete="(e) => (outcome = e.detail.${detail})" />
  <p role="status">{{ outcome }}</p>
</template>
`;
    write(app, {
      'package.json': JSON.stringify(
        {
          name: 'fresh-vue-app',
          private: true,
          type: 'module',
          dependencies: { 'kyc-onboard': `file:${packed.tarball}`, vue: '3.5.45' },
          devDependencies: { vite: '8.3.8', '@vitejs/plugin-vue': '6.0.11', typescript: '5.9.3', 'vue-tsc': '3.3.14' },
        },
        null,
        2,
      ),
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          module: 'ESNext',
          moduleResolution: 'bundler',
          jsx: 'preserve',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        include: ['src/**/*.ts', 'src/**/*.vue'],
      }),
      'vite.config.ts': `import { defineConfig } from 'vite';\nimport vue from '@vitejs/plugin-vue';\nexport default defineConfig({ logLevel: 'warn', plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag) => tag === 'kyc-onboard' } } })] });\n`,
      'index.html': `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Fresh Vue app</title></head>\n<body><div id="app"></div><script type="module" src="/src/main.ts"></script></body></html>\n`,
      'src/main.ts': `import { createApp } from 'vue';\nimport App from './App.vue';\ncreateApp(App).mount('#app');\n`,
      'src/App.vue': component('checkStatsu'),
    });
    await install(app);

    const typo = await attempt(app, bin(app, 'vue-tsc'), ['--noEmit', '-p', '.']);
    assert.notEqual(typo.code, 0, 'vue-tsc fails on the typo');
    assert.match(typo.out, /checkStatsu/, typo.out);
    write(app, { 'src/App.vue': component('checkStatus') });
    const clean = await attempt(app, bin(app, 'vue-tsc'), ['--noEmit', '-p', '.']);
    assert.equal(clean.code, 0, `vue-tsc passes without the typo:\n${clean.out}`);

    const build = await attempt(app, bin(app, 'vite'), ['build']);
    assert.equal(build.code, 0, `vite build:\n${build.out}`);
    assert.match(readFileSync(join(app, 'dist/index.html'), 'utf8'), /<script type="module"/);
    await ssrImport(app, ['kyc-onboard', 'kyc-onboard/vue']);
  });

  it('Preact and Solid: the shipped JSX typings check attributes and event details', { timeout: 600_000 }, async () => {
    const app = join(work, 'jsx-app');
    const files = (detail: string) => ({
      'src/preact.tsx': `import 'kyc-onboard/preact';\nexport const App = () => <kyc-onboard endpoint="/api" customer-ref="acct-p" sms onkyc-complete={(e) => console.log(e.detail.${detail})} />;\n`,
      'src/solid.tsx': `import 'kyc-onboard/solid';\nexport const App = () => <kyc-onboard endpoint="/api" customer-ref="acct-s" theme="dark" on:kyc-complete={(e) => console.log(e.detail.${detail})} />;\n`,
    });
    const tsconfig = (jsx: object, file: string) =>
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022', 'DOM'],
          module: 'ESNext',
          moduleResolution: 'bundler',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
          ...jsx,
        },
        files: [file],
      });
    write(app, {
      'package.json': JSON.stringify(
        {
          name: 'fresh-jsx-app',
          private: true,
          type: 'module',
          dependencies: { 'kyc-onboard': `file:${packed.tarball}`, preact: '11.2.0', 'solid-js': '1.9.19' },
          devDependencies: { typescript: '5.9.3' },
        },
        null,
        2,
      ),
      'tsconfig.preact.json': tsconfig({ jsx: 'react-jsx', jsxImportSource: 'preact' }, 'src/preact.tsx'),
      'tsconfig.solid.json': tsconfig({ jsx: 'preserve', jsxImportSource: 'solid-js' }, 'src/solid.tsx'),
      ...files('checkStatsu'),
    });
    await install(app);
    for (const which of ['preact', 'solid']) {
      const typo = await attempt(app, bin(app, 'tsc'), ['-p', `tsconfig.${which}.json`]);
      assert.notEqual(typo.code, 0, `${which}: tsc fails on the typo`);
      assert.match(typo.out, /checkStatsu/, typo.out);
    }
    write(app, files('checkStatus'));
    for (const which of ['preact', 'solid']) {
      const clean = await attempt(app, bin(app, 'tsc'), ['-p', `tsconfig.${which}.json`]);
      assert.equal(clean.code, 0, `${which}: tsc passes without the typo:\n${clean.out}`);
    }
  });
});
