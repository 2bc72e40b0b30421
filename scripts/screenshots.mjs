#!/usr/bin/env node
// `npm run screenshots`: builds, starts the real stack (wrangler dev, sandbox
// vendor, fresh state) on a free 127.0.0.1 port, drives the real demo in
// headless Debian Chromium and writes docs/screenshots/*.png, then stops
// everything. Nothing here is drawn: each picture is the page as a visitor sees it.
//
//   npm run screenshots                 build + shoot
//   npm run screenshots -- --no-build   shoot what dist/public holds
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions, freshUserDataDir } from '../test/support/chromium.mjs';
import { applyWithWrangler } from './lib/d1-migrations.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'docs/screenshots');

if (!process.argv.includes('--no-build')) {
  const r = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const freePort = () =>
  new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });

// The Japanese screenshot needs a CJK font (Debian: fonts-noto-cjk), or it shows empty boxes.
const cjk = spawnSync('fc-list', [':lang=ja', 'family'], { encoding: 'utf8' });
if (cjk.status === 0 && !cjk.stdout.trim()) {
  console.error('[screenshots] no Japanese font: `apt-get install -y fonts-noto-cjk`, then run again.');
  process.exit(1);
}

// ---- the stack ----
const port = await freePort();
const state = mkdtempSync(join(tmpdir(), 'kyc-shots-'));
// The D1 schema first, as `npm start` does: the worker refuses to start verifications on an unmigrated index.
const migrated = applyWithWrangler(root, { CI: 'true', WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' }, state);
if (migrated.status !== 0) {
  console.error(`[screenshots] applying the D1 migrations failed:\n${migrated.output}`);
  rmSync(state, { recursive: true, force: true });
  process.exit(1);
}
const wrangler = spawn(
  join(root, 'node_modules/.bin/wrangler'),
  ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', '0', '--persist-to', state],
  {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      CI: 'true',
      WRANGLER_SEND_METRICS: 'false',
      WRANGLER_HIDE_BANNER: 'true',
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
      NO_COLOR: '1',
    },
  },
);
let out = '';
wrangler.stdout.on('data', (d) => (out += d));
wrangler.stderr.on('data', (d) => (out += d));
const stopStack = () => {
  try {
    process.kill(-wrangler.pid, 'SIGTERM');
  } catch {
    /* gone */
  }
};
process.on('exit', () => {
  try {
    process.kill(-wrangler.pid, 'SIGKILL');
  } catch {
    /* gone */
  }
  rmSync(state, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

const base = `http://127.0.0.1:${port}`;
const deadline = Date.now() + 30_000;
while (!/Ready on/.test(out)) {
  if (Date.now() > deadline || wrangler.exitCode !== null) {
    console.error(`[screenshots] wrangler dev did not start:\n${out.slice(-2000)}`);
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 100));
}

// ---- the browser ----
mkdirSync(outDir, { recursive: true });
const shots = [];
async function browser(viewport, deviceScaleFactor = 1) {
  const dir = freshUserDataDir();
  const context = await chromium.launchPersistentContext(dir, { ...chromiumLaunchOptions(), viewport, deviceScaleFactor });
  context.setDefaultTimeout(20_000);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    close: async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
async function shoot(page, name, opts = {}, target = page) {
  await page.evaluate(() => document.fonts?.ready);
  await page.waitForTimeout(250); // let transitions settle
  const file = join(outDir, `${name}.png`);
  await target.screenshot({ path: file, ...opts });
  shots.push(file);
  console.log(`[screenshots] ${file.slice(root.length + 1)}`);
}
/** The widget's card alone (the README shows it at its own size). */
async function shootCard(page, name) {
  const card = page.locator('.widget-card');
  await card.scrollIntoViewIfNeeded();
  await shoot(page, name, {}, card);
}
const w = (page) => page.locator('kyc-onboard');
async function fill(page, p) {
  await w(page).getByLabel('Given name').fill(p.given);
  await w(page).getByLabel('Family name').fill(p.family);
  const dob = w(page).getByRole('group', { name: 'Date of birth' });
  await dob.getByLabel('Day').fill('12');
  await dob.getByLabel('Month').fill('4');
  await dob.getByLabel('Year').fill(String(new Date().getUTCFullYear() - 36)); // an adult, whatever the year
  await w(page).getByLabel('Country code').fill('+61'); // an Australian number, whatever the browser's region
  await w(page).getByLabel('Mobile number').fill('412 345 678');
  await w(page).getByRole('checkbox').check();
}
const state$ = async (page, s, timeout = 20_000) => {
  try {
    await page.locator(`kyc-onboard[state="${s}"]`).waitFor({ state: 'attached', timeout });
  } catch (e) {
    // Which state the widget is in instead, and what it says: the picture script's own diagnosis.
    const now = await page
      .locator('kyc-onboard')
      .evaluate((el) => `${el.getAttribute('state')}: ${el.shadowRoot?.textContent?.replace(/\s+/g, ' ').trim().slice(0, 400)}`)
      .catch(() => 'no widget');
    throw new Error(`waiting for the state ${s}; the widget is ${now}`, { cause: e });
  }
};

try {
  // 1. Laptop, light: the partner page with the form, the console beside it.
  {
    const { page, close } = await browser({ width: 1440, height: 1000 });
    await page.goto(base + '/');
    await state$(page, 'idle');
    await shoot(page, 'demo-laptop');
    // The form alone: its intro line (who checks, why, the privacy notice) above the fields.
    await shootCard(page, 'widget-form');

    // 2. Laptop, dark: "Text me a link", the message in the outbox.
    await page.getByText('Dark', { exact: true }).click();
    await fill(page, { given: 'Alice', family: 'Citizen' });
    await w(page).getByRole('radio', { name: 'Text me a link' }).check();
    await w(page).getByRole('button', { name: 'Verify my identity' }).click();
    await state$(page, 'sms-sent');
    await page.getByRole('region', { name: 'SMS outbox' }).getByRole('listitem').first().waitFor();
    await shoot(page, 'demo-laptop-dark-sms', { fullPage: true });
    // "We texted a link" with its way back: "Change my number" and "Use this device instead".
    await w(page).getByRole('button', { name: 'Change my number' }).waitFor();
    await shootCard(page, 'widget-texted-way-back');
    // "Send again": when and where it went (or, past the texting limit, until when not).
    await w(page).getByRole('button', { name: 'Send again' }).click();
    await w(page).locator('#sent, #resend').first().waitFor();
    await shootCard(page, 'widget-sent-again');
    await close();
  }

  // 2b. Laptop: "Continue on my phone": the code and "Show a new code"; the phone opens it, the laptop says so.
  {
    const { page, close } = await browser({ width: 1440, height: 1000 });
    await page.goto(base + '/');
    await state$(page, 'idle');
    await fill(page, { given: 'Dana', family: 'Example' });
    await w(page).getByRole('radio', { name: 'Continue on my phone' }).check();
    await w(page).getByRole('button', { name: 'Verify my identity' }).click();
    await state$(page, 'handoff');
    await w(page).getByRole('button', { name: 'Show a new code' }).waitFor();
    await shootCard(page, 'widget-handoff-code');
    const phone = await page.context().newPage();
    await phone.goto(await w(page).locator('#handoff-link').inputValue());
    await phone.getByRole('button', { name: 'Continue' }).click();
    await phone.waitForURL(/\/sandbox\/flow\//);
    await w(page).getByText('Opened on your phone').waitFor();
    await shootCard(page, 'widget-handoff-opened');
    await close();
  }

  // 3. Laptop, brand colour: back from the hosted flow, complete, the event log.
  {
    const { page, close } = await browser({ width: 1440, height: 1000 });
    await page.goto(base + '/');
    await page.getByText('Brand', { exact: true }).click();
    await fill(page, { given: 'Bob', family: 'Example' });
    await w(page).getByRole('button', { name: 'Verify my identity' }).click();
    await page.waitForURL(/\/sandbox\/flow\//);
    await page.getByRole('button', { name: 'Complete verification' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    await state$(page, 'complete');
    await shoot(page, 'demo-laptop-brand-complete');
    await close();
  }

  // 4. Phone: the form, then the failure path's neutral message, in Arabic (right to left).
  {
    const { page, close } = await browser({ width: 390, height: 844 }, 2);
    await page.goto(base + '/');
    await state$(page, 'idle');
    await page.locator('#open-title').scrollIntoViewIfNeeded();
    await shoot(page, 'demo-phone');
    await fill(page, { given: 'Carol', family: 'Example' });
    // The same form in Arabic (right to left); what was typed stays.
    await page.getByLabel('Language').selectOption('ar');
    await page.locator('.widget-card').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await shoot(page, 'demo-phone-arabic');
    await w(page).locator('button[type="submit"]').click();
    await page.waitForURL(/\/sandbox\/flow\//);
    await shoot(page, 'sandbox-hosted-flow-phone', { clip: { x: 0, y: 0, width: 390, height: 540 } });
    await page.getByRole('button', { name: 'Fail verification' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    await state$(page, 'complete');
    await page.locator('.widget-card').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await shoot(page, 'demo-phone-arabic-failed');
    await close();
  }

  // 5. Phone, Japanese (CJK; the date of birth year first), then "Continue on my phone" in Hebrew and the phone's
  //    own page it opens, in Hebrew (right to left).
  {
    const { page, close } = await browser({ width: 390, height: 844 }, 2);
    await page.goto(base + '/');
    await state$(page, 'idle');
    await page.getByLabel('Language').selectOption('ja');
    await w(page).getByLabel('姓', { exact: true }).fill('山田');
    await w(page).getByLabel('名（ある場合）', { exact: true }).fill('花子');
    const dob = w(page).getByRole('group', { name: '生年月日' });
    await dob.getByLabel('年', { exact: true }).fill(String(new Date().getUTCFullYear() - 41));
    await dob.getByLabel('月', { exact: true }).fill('3');
    await dob.getByLabel('日', { exact: true }).fill('21');
    await page.locator('.widget-card').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await shoot(page, 'demo-phone-japanese');

    await page.getByLabel('Language').selectOption('he');
    await w(page).getByLabel('שם משפחה', { exact: true }).waitFor();
    await w(page).getByLabel('קידומת מדינה').fill('+61');
    await w(page).getByLabel('מספר טלפון נייד').fill('412 345 678');
    await w(page).getByRole('checkbox').check();
    await w(page).getByRole('radio', { name: 'המשך בטלפון שלי' }).check();
    await w(page).locator('button[type="submit"]').click();
    await state$(page, 'handoff');
    const link = await w(page).locator('#handoff-link').inputValue();
    await page.goto(link);
    await page.getByRole('button', { name: 'המשך' }).waitFor();
    await shoot(page, 'handoff-phone-hebrew', { clip: { x: 0, y: 0, width: 390, height: 600 } });
    await close();
  }
} catch (e) {
  console.error('[screenshots] failed:', e);
  process.exitCode = 1;
} finally {
  stopStack();
  const until = Date.now() + 5000;
  while (wrangler.exitCode === null && wrangler.signalCode === null && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
}
console.log(`[screenshots] ${shots.length} screenshots in docs/screenshots/`);
process.exit();
