// The three browser engines the widget tests run in, all Debian's own (no test tool here downloads a browser):
//   Chromium     /usr/bin/chromium      through Playwright (playwright-core)
//   Firefox ESR  /usr/bin/firefox-esr   through puppeteer-core over WebDriver BiDi (no separate driver)
//   WebKitGTK    /usr/bin/WebKitWebDriver (webkit2gtk-driver) through WebDriver classic, MiniBrowser under xvfb-run
// `KYC_ENGINES=chromium,firefox,webkit` picks them (`all`: the three); the default is Chromium (`npm run test:widget`),
// and `npm test` runs Firefox and WebKitGTK next (`npm run test:widget:firefox-webkit`). A named engine that is missing
// fails the run (scripts/ensure-engines.mjs installs them).
import { ChromeLauncher } from '@web/test-runner-chrome';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { webdriverLauncher } from '@web/test-runner-webdriver';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as puppeteer from 'puppeteer-core';
import { chromiumLaunchOptions } from '../support/chromium.mjs';

export const firefoxPath = [process.env.FIREFOX_PATH, '/usr/bin/firefox-esr', '/usr/bin/firefox'].find((p) => p && existsSync(p));
export const webkitDriverPath = [process.env.WEBKIT_WEBDRIVER_PATH, '/usr/bin/WebKitWebDriver'].find((p) => p && existsSync(p));
export const miniBrowser = [
  '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
  '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.0/MiniBrowser',
].find((p) => existsSync(p));

/** Which engines this run asks for: `KYC_ENGINES`, else Chromium (`all` = the three). */
export function wantedEngines() {
  const asked = process.env.KYC_ENGINES?.split(/[\s,]+/).filter(Boolean);
  if (asked?.length === 1 && asked[0] === 'all') return ['chromium', 'firefox', 'webkit'];
  return asked?.length ? asked : ['chromium'];
}

/** Firefox ESR as @web/test-runner-puppeteer would launch it, with Debian's binary and a closed network's prefs. */
function firefoxLauncher() {
  if (!firefoxPath) throw new Error('KYC_ENGINES asks for firefox: none found (Debian: apt-get install -y firefox-esr)');
  return new ChromeLauncher(
    {
      browser: 'firefox',
      executablePath: firefoxPath,
      headless: true,
      extraPrefsFirefox: {
        // Nothing phones home on a closed network; service workers on http://127.0.0.1 (msw) are allowed anyway.
        'network.dns.disableIPv6': true,
        'browser.safebrowsing.malware.enabled': false,
        'browser.safebrowsing.phishing.enabled': false,
        'app.update.enabled': false,
        'dom.serviceWorkers.testing.enabled': true,
      },
    },
    ({ browser }) => browser.defaultBrowserContext(),
    async ({ context }) => {
      const page = await context.newPage();
      // puppeteer 24 sends the viewport and a screen-orientation override together; Firefox ESR 140 has no
      // orientation command ("unknown command emulation.setScreenOrientationOverride") but sets the viewport.
      const setViewport = page.setViewport.bind(page);
      page.setViewport = (viewport) =>
        setViewport(viewport).catch((e) => {
          if (!String(e?.message).includes('setScreenOrientationOverride')) throw e;
        });
      return page;
    },
    puppeteer,
  );
}

/** A free port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

/**
 * WebKitGTK: start Debian's WebKitWebDriver on a free port (stopped when the run ends), then drive MiniBrowser
 * headless through it with classic WebDriver (it refuses the BiDi session webdriverio asks for by default).
 */
async function webkitLauncher() {
  if (!webkitDriverPath || !miniBrowser)
    throw new Error('KYC_ENGINES asks for webkit: no WebKitWebDriver/MiniBrowser (Debian: apt-get install -y webkit2gtk-driver xvfb)');
  const port = await freePort();
  // Debian's MiniBrowser is a GTK window with no headless mode: give it a virtual display (xvfb-run) unless there is one.
  const args = [`--port=${port}`, '--host=127.0.0.1'];
  const [cmd, argv] = process.env.DISPLAY ? [webkitDriverPath, args] : ['xvfb-run', ['-a', webkitDriverPath, ...args]];
  const driver = spawn(cmd, argv, {
    stdio: 'ignore',
    detached: true, // its own process group: xvfb-run's Xvfb and the driver stop together
    env: { ...process.env, XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'kyc-webkit-')) },
  });
  const stop = () => {
    try {
      process.kill(-driver.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  process.once('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => (stop(), process.exit(1)));
  // Wait for it to listen.
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/status`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 50)); // the driver process starting: nothing to wait on but its port
  }
  return webdriverLauncher({
    automationProtocol: 'webdriver',
    hostname: '127.0.0.1',
    port,
    logLevel: 'error',
    capabilities: {
      browserName: 'MiniBrowser',
      'wdio:enforceWebDriverClassic': true,
      'webkitgtk:browserOptions': { binary: miniBrowser, args: ['--automation'] },
    },
  });
}

/** The launchers for `wantedEngines()`. */
export async function launchers() {
  const out = [];
  for (const engine of wantedEngines()) {
    if (engine === 'chromium') out.push(playwrightLauncher({ product: 'chromium', launchOptions: chromiumLaunchOptions() }));
    else if (engine === 'firefox') out.push(firefoxLauncher());
    else if (engine === 'webkit') out.push(await webkitLauncher());
    else throw new Error(`KYC_ENGINES: unknown engine ${engine} (chromium, firefox, webkit)`);
  }
  return out;
}
