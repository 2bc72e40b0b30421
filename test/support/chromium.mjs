// The one place that knows how to launch Chromium on this closed network.
// Used by @web/test-runner (browser tests), the end-to-end tests and the
// benchmarks. Plain JS so that config files can import it too.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const chromiumPath =
  [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p)) ?? '/usr/bin/chromium';

/** Flags that keep Chromium quiet with no internet. */
export const chromiumArgs = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--disable-extensions',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--no-pings',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
];

/** Launch options for playwright-core's `chromium.launch()` / `launchPersistentContext()`. */
export function chromiumLaunchOptions() {
  return { executablePath: chromiumPath, headless: true, args: chromiumArgs };
}

/** A fresh, empty user-data dir per browser. */
export function freshUserDataDir() {
  return mkdtempSync(join(tmpdir(), 'kyc-chromium-'));
}
