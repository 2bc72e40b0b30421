#!/usr/bin/env node
// Finds a Chromium for the browser tests. No test tool here may download its
// own browser, so we use the system one: $CHROMIUM_PATH, then Debian's
// /usr/bin/chromium. Missing and root on Debian: install it with apt-get.
// Otherwise: say exactly how to get one, and fail.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
const found = () => candidates.find((p) => existsSync(p));

if (found()) {
  process.exit(0);
}
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const isDebian = existsSync('/etc/debian_version') && existsSync('/usr/bin/apt-get');
if (isRoot && isDebian) {
  console.log("[ensure-chromium] no Chromium found: installing Debian's chromium (apt-get) …");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
  if (found()) process.exit(0);
}
console.error(`[ensure-chromium] The browser tests need Chromium and none was found.
  Debian/Ubuntu:  sudo apt-get install -y chromium
  macOS:          brew install --cask chromium
  Or point CHROMIUM_PATH at any Chromium or Chrome binary:  CHROMIUM_PATH=/path/to/chrome npm test`);
process.exit(1);
