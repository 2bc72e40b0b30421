// Browser tests of <kyc-onboard>: real Chromium (the system one), msw in the page as the worker.
//   npm run test:widget
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { webdriverLauncher } from '@web/test-runner-webdriver';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildBundle } from '../../scripts/build-widget.mjs';
import { BUDGET_GZIP, measure, measureChunks } from '../../scripts/widget-size.mjs';
import { chromiumLaunchOptions } from '../support/chromium.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));

// The size test and the strict-CSP page load the real self-contained bundle.
await buildBundle();

const STRICT_CSP = "default-src 'self'";

/** A partner page under a strict CSP (no 'unsafe-inline' anywhere): only same-origin external scripts. */
const cspPage = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>strict CSP partner page</title>
    <script src="/__csp/probe.js"></script>
    <script type="module" src="/dist/widget/kyc-onboard.js"></script>
  </head>
  <body>
    <kyc-onboard endpoint="/__csp/api"></kyc-onboard>
  </body>
</html>`;

/** Records CSP violations on the page, so the test can assert there were none. */
const cspProbe = `window.__violations = [];
document.addEventListener('securitypolicyviolation', function (e) { window.__violations.push(e.violatedDirective + ' ' + e.blockedURI); });`;

const cspRequests = [];

/** Test-only server routes: msw's worker script at the root, and the strict-CSP page with its tiny API. */
function testRoutes() {
  return async (ctx, next) => {
    // The widget's widget.shown beacon (sendBeacon is not seen by msw's service worker): accepted, as the worker does.
    if (/\/api\/beacon$/.test(ctx.path) && ctx.method === 'POST') {
      ctx.status = 204;
      return;
    }
    if (ctx.path === '/mockServiceWorker.js') {
      ctx.type = 'application/javascript';
      ctx.body = readFileSync(new URL('../../node_modules/msw/lib/mockServiceWorker.js', import.meta.url), 'utf8');
      return;
    }
    // The source's computed dictionary import (widget/dictionary.ts) asks for `./i18n/<code>.js`: serve the .ts.
    const dictionary = /^\/widget\/i18n\/([\w-]+)\.js$/.exec(ctx.path);
    if (dictionary) {
      if (!existsSync(new URL(`../../widget/i18n/${dictionary[1]}.ts`, import.meta.url))) {
        ctx.status = 404;
        return;
      }
      ctx.path = ctx.path.replace(/\.js$/, '.ts');
      return next();
    }
    if (ctx.path === '/__csp/page.html') {
      ctx.set('Content-Security-Policy', STRICT_CSP);
      ctx.type = 'text/html';
      ctx.body = cspPage;
      return;
    }
    if (ctx.path === '/__csp/probe.js') {
      ctx.type = 'application/javascript';
      ctx.body = cspProbe;
      return;
    }
    if (ctx.path === '/__csp/api/onboarding-link' && ctx.method === 'POST') {
      let raw = '';
      for await (const chunk of ctx.req) raw += chunk;
      cspRequests.push({ body: JSON.parse(raw), key: ctx.get('Idempotency-Key') });
      ctx.type = 'application/json';
      const handoff = cspRequests.at(-1).body.handoff === true;
      ctx.body = JSON.stringify({
        url: handoff
          ? 'https://kyc.example/handoff/vrf_01JDQ7Z8X9Y0ABCDEFGHJKMNPQ?t=abcdefghijklmnopqrstuv'
          : 'https://hosted.example/flow/abc',
        urlExpiry: new Date(Date.now() + 600_000).toISOString(),
        status: 'OK',
        smsSent: false,
        session: 'csp-session',
        // "Continue on my phone": a 21×21 matrix, every other module dark (enough to draw).
        ...(handoff ? { qr: { size: 21, modules: Buffer.alloc(56, 0xaa).toString('base64') } } : {}),
      });
      return;
    }
    if (ctx.path === '/__csp/requests') {
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(cspRequests);
      return;
    }
    return next();
  };
}

/**
 * Server commands for the tests: count elements by ARIA role and accessible
 * name as the browser's accessibility tree sees them (Playwright's getByRole
 * pierces shadow roots), emulate a colour scheme or a phone's touch screen, and measure the bundle
 * exactly as scripts/widget-size.mjs does.
 */
function roleQueries() {
  return {
    name: 'kyc-role-queries',
    async executeCommand({ command, payload, session }) {
      if (command === 'widget-size') return { ...measure(), budget: BUDGET_GZIP, chunks: measureChunks() };
      if (command !== 'count-role' && command !== 'color-scheme' && command !== 'phone') return undefined;
      const page = session.browser.getPage(session.id);
      if (command === 'phone') {
        // A phone's touch screen: `(pointer: coarse)` matches (or no longer does).
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: payload, ...(payload ? { maxTouchPoints: 5 } : {}) });
        await cdp.send('Emulation.setEmitTouchEventsForMouse', { enabled: payload, configuration: 'mobile' });
        return true;
      }
      if (command === 'color-scheme') {
        await page.emulateMedia({ colorScheme: payload });
        return true;
      }
      const { role, name, within } = payload;
      const scope = within ? page.frameLocator(within) : page;
      return scope.getByRole(role, { name, exact: true }).count();
    },
  };
}

/** The widget tests that run in WebKitGTK too. */
const WEBKIT_FILES = ['test/widget/locale.test.ts', 'test/widget/styles.test.ts'];

/** WebKitGTK's MiniBrowser, driven by the WebKitWebDriver at `url`. */
function webkitLauncher(url) {
  return webdriverLauncher({
    automationProtocol: 'webdriver',
    hostname: url.hostname,
    port: Number(url.port),
    // Classic WebDriver: WebKitWebDriver refuses the BiDi session webdriverio asks for by default.
    capabilities: { browserName: 'MiniBrowser', 'wdio:enforceWebDriverClassic': true },
  });
}

export default {
  rootDir: root,
  files: ['test/widget/**/*.test.ts'],
  nodeResolve: true,
  hostname: '127.0.0.1',
  concurrency: 1,
  browsers: [playwrightLauncher({ product: 'chromium', launchOptions: chromiumLaunchOptions() })],
  // A second engine, optional: WebKitGTK through WebKitWebDriver (Debian's webkit2gtk-driver, under xvfb-run),
  // when WEBKIT_WEBDRIVER names where it listens (`--group webkit`, docs/testing.md). Only the files that need
  // neither msw's service worker nor Playwright's server commands, which WebDriver cannot give.
  groups: process.env.WEBKIT_WEBDRIVER
    ? [{ name: 'webkit', files: WEBKIT_FILES, browsers: [webkitLauncher(new URL(process.env.WEBKIT_WEBDRIVER))] }]
    : [],
  middleware: [testRoutes()],
  plugins: [esbuildPlugin({ ts: true, tsconfig: fileURLToPath(new URL('./tsconfig.json', import.meta.url)) }), roleQueries()],
  testFramework: { config: { timeout: 30000 } }, // a test's waits are 8 s each (helpers.ts): room for several on a busy machine
};
