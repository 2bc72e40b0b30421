#!/usr/bin/env node
// Finds the two other browser engines the widget tests run in (test/widget/engines.mjs), Debian's own builds (no
// test tool here may download a browser): Firefox ESR, and WebKitGTK's WebDriver with its MiniBrowser, which needs
// a virtual display (xvfb-run, xauth). Missing and root on Debian: install them with apt-get, as
// scripts/ensure-chromium.mjs does Chromium. Otherwise: name each missing one and its package, and fail.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const onPath = (cmd) => (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(`${dir}/${cmd}`));

/** What the engines need: [what, found?, Debian package]. Found again after an install (paths are re-read). */
const needs = async () => {
  const e = await import(`../test/widget/engines.mjs?${Date.now()}`);
  return [
    ['Firefox ESR (FIREFOX_PATH, /usr/bin/firefox-esr)', !!e.firefoxPath, 'firefox-esr'],
    ['WebKitWebDriver (WEBKIT_WEBDRIVER_PATH, /usr/bin/WebKitWebDriver)', !!e.webkitDriverPath, 'webkit2gtk-driver'],
    ["WebKitGTK's MiniBrowser", !!e.miniBrowser, 'webkit2gtk-driver'],
    // MiniBrowser has no headless mode: a virtual display, unless this session has one.
    ['xvfb-run (a virtual display for MiniBrowser)', !!process.env.DISPLAY || onPath('xvfb-run'), 'xvfb'],
    ['xauth (used by xvfb-run)', !!process.env.DISPLAY || onPath('xauth'), 'xauth'],
  ];
};

let missing = (await needs()).filter(([, found]) => !found);
if (!missing.length) process.exit(0);

const packages = [...new Set(missing.map(([, , pkg]) => pkg))];
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const isDebian = existsSync('/etc/debian_version') && existsSync('/usr/bin/apt-get');
if (isRoot && isDebian) {
  console.log(`[ensure-engines] missing: ${missing.map(([what]) => what).join('; ')}: installing ${packages.join(' ')} (apt-get) …`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit', env });
  missing = (await needs()).filter(([, found]) => !found);
  if (!missing.length) process.exit(0);
}
console.error(`[ensure-engines] The widget tests run in Chromium, Firefox ESR and WebKitGTK; not found here:
${missing.map(([what, , pkg]) => `  ${what}: Debian/Ubuntu package ${pkg}`).join('\n')}
  Install:  sudo apt-get install -y ${[...new Set(missing.map(([, , pkg]) => pkg))].join(' ')}
  Or point FIREFOX_PATH / WEBKIT_WEBDRIVER_PATH at your own builds.`);
process.exit(1);
