// Browser tests of <kyc-onboard>: every file in Chromium, Firefox ESR and WebKitGTK (the system ones, in parallel:
// one page per engine at a time), msw in the page as the worker.
//   npm run test:widget                                   Chromium
//   npm run test:widget:firefox-webkit                    Firefox ESR and WebKitGTK (npm test runs both commands)
//   KYC_ENGINES=firefox npx web-test-runner --config test/widget/web-test-runner.config.mjs --files <file>
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildBundle } from '../../scripts/build-widget.mjs';
import { BUDGET_GZIP, measure, measureChunks } from '../../scripts/widget-size.mjs';
import { launchers } from './engines.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));

// The size test and the strict-CSP page load the real self-contained bundle. `npm test` has just built it
// (KYC_WIDGET_BUILT, scripts/test.mjs), and runs the engines in two lanes at once: rebuilding here would delete the
// chunks under the other run's pages.
if (!process.env.KYC_WIDGET_BUILT) await buildBundle();

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
 * name as the browser's accessibility tree sees them (through shadow roots),
 * emulate a colour scheme or a phone's touch screen, and measure the bundle
 * exactly as scripts/widget-size.mjs does. Each engine's driver answers what it
 * can: Playwright (Chromium) all; puppeteer over BiDi (Firefox) the roles and the
 * colour scheme; WebDriver classic (WebKitGTK) the roles, through its computed
 * role and label of each element. What an engine's driver cannot emulate answers
 * `'unsupported'`, and the test skips that check, saying why.
 */
/** What a command answers where the engine's driver cannot do it (null or undefined would mean "unknown command"). */
const UNSUPPORTED = 'unsupported';

function roleQueries() {
  return {
    name: 'kyc-role-queries',
    async executeCommand({ command, payload, session }) {
      if (command === 'widget-size') return { ...measure(), budget: BUDGET_GZIP, chunks: measureChunks() };
      if (!['count-role', 'color-scheme', 'phone', 'viewport'].includes(command)) return undefined;
      const type = session.browser.type;
      if (type === 'playwright') return playwrightCommand(session.browser.getPage(session.id), command, payload);
      if (type === 'puppeteer') return puppeteerCommand(session.browser.getPage(session.id), command, payload);
      if (type === 'webdriver') return webdriverCommand(session.browser.driver, command, payload);
      return UNSUPPORTED;
    },
  };
}

async function playwrightCommand(page, command, payload) {
  if (command === 'viewport') {
    await page.setViewportSize(payload);
    return true;
  }
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
}

async function puppeteerCommand(page, command, payload) {
  if (command === 'viewport') {
    await page.setViewport(payload);
    return true;
  }
  if (command === 'phone') return UNSUPPORTED; // no touch emulation over BiDi in Firefox ESR
  if (command === 'color-scheme') {
    try {
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: payload }]);
      return true;
    } catch {
      return UNSUPPORTED;
    }
  }
  const { role, name, within } = payload;
  const frame = within ? await (await page.$(within))?.contentFrame() : page.mainFrame();
  if (!frame) return 0;
  // puppeteer's ARIA selector asks the browser's accessibility tree. Firefox's (BiDi `locateNodes`) does not
  // look into shadow roots: ask from the document and from each shadow root in turn (each stops at the next).
  const roots = await frame.evaluateHandle(() => {
    const out = [document];
    const walk = (root) => {
      for (const e of root.querySelectorAll('*'))
        if (e.shadowRoot) {
          out.push(e.shadowRoot);
          walk(e.shadowRoot);
        }
    };
    walk(document);
    return out;
  });
  let n = 0;
  for (const root of (await roots.getProperties()).values())
    n += (await root.$$(`::-p-aria([name=${JSON.stringify(name)}][role=${JSON.stringify(role)}])`)).length;
  return n;
}

/** The candidates for a role, through every shadow root, that the accessibility tree would show. */
function candidates() {
  const out = [];
  const walk = (root) => {
    for (const e of root.querySelectorAll('*')) {
      if (e.matches('input, button, select, textarea, fieldset, a[href], [role]') && !e.closest('[aria-hidden=true], [hidden]'))
        out.push(e);
      if (e.shadowRoot) walk(e.shadowRoot);
    }
  };
  walk(document);
  return out;
}

/**
 * WebDriver classic sizes the window, not the viewport (@web/test-runner's `setViewport` refuses webdriver): the window
 * is sized to the page size asked for plus its frame's height. MiniBrowser's window is never narrower than its GTK
 * header bar (447 px): a narrower viewport answers `'unsupported'` (a 2× page zoom through GDK_DPI_SCALE would reach
 * 280 px, but then WebKitGTK neither matches :focus-visible nor puts WebDriver's clicks where the page says).
 */
async function webdriverViewport(driver, { width, height }) {
  for (let i = 0; i < 3; i++) {
    const [iw, ih] = await driver.execute(() => [window.innerWidth, window.innerHeight]);
    if (iw === width && ih === height) return true;
    const rect = await driver.getWindowRect();
    if (i > 0 && iw > width && rect.width <= width) return UNSUPPORTED; // the window will not get narrower
    await driver.setWindowSize(width, rect.height - ih + height);
  }
  return UNSUPPORTED;
}

async function webdriverCommand(driver, command, payload) {
  if (command === 'viewport') return webdriverViewport(driver, payload);
  if (command !== 'count-role') return UNSUPPORTED; // WebDriver classic emulates neither touch nor colour schemes
  const { role, name, within } = payload;
  if (within) await driver.switchFrame(await driver.$(within));
  try {
    const elements = await driver.execute(candidates);
    let n = 0;
    for (const el of elements) {
      const id = el['element-6066-11e4-a52e-4f735466cecf'] ?? el.ELEMENT;
      if ((await driver.getElementComputedRole(id)) !== role) continue;
      if ((await driver.getElementComputedLabel(id)).trim() === name) n++;
    }
    return n;
  } finally {
    if (within) await driver.switchToParentFrame();
  }
}

export default {
  rootDir: root,
  files: ['test/widget/**/*.test.ts'],
  nodeResolve: true,
  hostname: '127.0.0.1',
  concurrency: 1,
  browsers: await launchers(),
  // The engines run side by side (the default is two at a time): one page each, so one run takes about the time of
  // the slowest engine, not the sum.
  concurrentBrowsers: 3,
  // Firefox and WebKitGTK take 30 s and more to start on a busy 2-core machine.
  browserStartTimeout: 120000,
  middleware: [testRoutes()],
  plugins: [esbuildPlugin({ ts: true, tsconfig: fileURLToPath(new URL('./tsconfig.json', import.meta.url)) }), roleQueries()],
  testFramework: { config: { timeout: 30000 } }, // a test's waits are 8 s each (helpers.ts): room for several on a busy machine
};
