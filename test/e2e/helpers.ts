/**
 * Shared pieces of the end-to-end tests: the real worker (`wrangler dev`, via
 * test/support/wrangler.ts), Debian Chromium through playwright-core with a
 * fresh profile, and the form filled in the way a person fills it: controls
 * found by their labels and roles, never by CSS selectors into the widget.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { chromiumLaunchOptions, freshUserDataDir } from '../support/chromium.mjs';
import { ROOT, startWorker, type RunningWorker } from '../support/wrangler';
import { adultDateOfBirth } from '../support/dates';
import { until } from '../support/wait';

export { freePort } from '../support/wrangler';
/** The widget's English strings: the tests look for what a person reads, and follow rewording. */
export { default as en } from '../../widget/i18n/en';

/** The e2e tests serve what `npm run build` made; `npm test` builds first. */
export function requireBuilt(): void {
  const missing = ['dist/public/index.html', 'dist/public/widget.js', 'dist/public/_headers'].filter((f) => !existsSync(join(ROOT, f)));
  if (missing.length) {
    throw new Error(
      `The end-to-end tests need a build first (missing ${missing.join(', ')}). Run \`npm run build\`, or \`npm test\`, which builds.`,
    );
  }
}

/** The worker as `npm start` runs it (sandbox vendor unless vars say otherwise), on a free port. */
export async function startStack(vars: Record<string, string> = {}): Promise<RunningWorker> {
  requireBuilt();
  // As `npm start` runs it: with the sandbox as the vendor, results are asked every 5 s.
  const local: Record<string, string> =
    !vars.KYC_BASE_URL || vars.KYC_BASE_URL === 'sandbox' ? { RESULT_POLL_SECONDS: '5', RESULT_POLL_MAX_SECONDS: '10' } : {};
  return startWorker({ vars: { ...local, ...vars } });
}

/** After stop(), nothing answers on the worker's port any more. */
export async function assertStopped(url: string): Promise<void> {
  await assert.rejects(fetch(url, { signal: AbortSignal.timeout(2000) }), `something still answers on ${url}`);
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and CSP violations the pages reported. */
  problems: string[];
  close(): Promise<void>;
}

/** Chromium with a fresh, throw-away profile (a new person on a new device). */
export async function openBrowser(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  const dir = freshUserDataDir();
  const context = await chromium.launchPersistentContext(dir, { ...chromiumLaunchOptions(), viewport });
  context.setDefaultTimeout(15_000);
  const problems: string[] = [];
  const watch = (p: Page) => {
    p.on('console', (m) => {
      if (m.type() === 'error') problems.push(`${p.url()}: ${m.text()}`);
    });
    p.on('pageerror', (e) => problems.push(`${p.url()}: ${e.message}`));
  };
  context.on('page', watch);
  const page = context.pages()[0] ?? (await context.newPage());
  watch(page);
  return {
    context,
    page,
    problems,
    async close() {
      await context.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fill the form as `person`, choose a way to the phone (its radio's name), submit, and wait for the state it leads to. */
export async function startOnPhone(page: Page, person: Person, way: 'Text me a link' | 'Continue on my phone'): Promise<void> {
  await fillForm(page, person);
  await widget(page).getByRole('radio', { name: way }).check();
  await submit(page);
  await waitForState(page, way === 'Text me a link' ? 'sms-sent' : 'handoff');
}

/** A phone-sized viewport (the second device of the phone paths). */
export const PHONE = { width: 390, height: 844 };

/**
 * One test's stack: the worker, a laptop and a phone (each a fresh browser).
 * All are closed and the worker stopped after `run`, whatever happened, and
 * nothing answers on its port afterwards.
 */
export async function withLaptopAndPhone(
  run: (s: { worker: RunningWorker; laptop: Browser; phone: Browser }) => Promise<void>,
  vars: Record<string, string> = {},
): Promise<void> {
  const worker = await startStack(vars);
  const laptop = await openBrowser();
  const phone = await openBrowser(PHONE);
  try {
    await run({ worker, laptop, phone });
  } finally {
    await phone.close();
    await laptop.close();
    await worker.stop();
  }
  await assertStopped(worker.url);
}

/**
 * One test's demo page: the stack as `npm start` runs it (with `vars`), a
 * fresh browser on its page, the widget idle (its events recorded first, with
 * `recordEvents`). The browser is closed and the worker stopped after `run`,
 * whatever happened, and nothing answers on its port afterwards.
 */
export async function withDemoPage(
  run: (s: { worker: RunningWorker; browser: Browser; page: Page }) => Promise<void>,
  vars: Record<string, string> = {},
  options: { recordEvents?: boolean } = {},
): Promise<void> {
  const worker = await startStack(vars);
  const browser = await openBrowser();
  try {
    const { page } = browser;
    if (options.recordEvents) await recordEvents(page);
    await page.goto(worker.url + '/');
    await waitForState(page, 'idle');
    await run({ worker, browser, page });
  } finally {
    await browser.close();
    await worker.stop();
  }
  await assertStopped(worker.url);
}

export interface Person {
  givenName?: string;
  familyName?: string;
  dateOfBirth?: string;
  countryCode?: string;
  mobileNumber?: string;
  consent?: boolean;
}

export const ALICE: Required<Person> = {
  givenName: 'Alice',
  familyName: 'Citizen',
  dateOfBirth: adultDateOfBirth(),
  countryCode: '+61',
  mobileNumber: '412 345 678',
  consent: true,
};

/** The widget on the page: its controls are found inside it by label and role (the demo console has controls too). */
export const widget = (page: Page) => page.locator('kyc-onboard');

/** The widget's "Date of birth" group (Day, Month, Year). */
export const dateOfBirth = (page: Page) => widget(page).getByRole('group', { name: 'Date of birth' });

/** What the "Date of birth" group holds, as YYYY-MM-DD. */
export async function dateOfBirthValue(page: Page): Promise<string> {
  const dob = dateOfBirth(page);
  const [d, m, y] = await Promise.all(['Day', 'Month', 'Year'].map((n) => dob.getByLabel(n).inputValue()));
  return `${y}-${m}-${d}`;
}

/** Fill the form by its labels, as a person would. The consent checkbox is the form's only checkbox. */
export async function fillForm(page: Page, p: Person): Promise<void> {
  const w = widget(page);
  if (p.givenName !== undefined) await w.getByLabel('Given name').fill(p.givenName);
  if (p.familyName !== undefined) await w.getByLabel('Family name').fill(p.familyName);
  if (p.dateOfBirth !== undefined) {
    // "Date of birth" is a group of three fields; `dateOfBirth` is YYYY-MM-DD.
    const [year = '', month = '', day = ''] = p.dateOfBirth.split('-');
    const dob = dateOfBirth(page);
    await dob.getByLabel('Day').fill(day);
    await dob.getByLabel('Month').fill(month);
    await dob.getByLabel('Year').fill(year);
  }
  if (p.countryCode !== undefined) await w.getByLabel('Country code').fill(p.countryCode);
  if (p.mobileNumber !== undefined) await w.getByLabel('Mobile number').fill(p.mobileNumber);
  if (p.consent) await w.getByRole('checkbox').check();
}

export const submit = (page: Page) => widget(page).getByRole('button', { name: 'Verify my identity' }).click();

/** Waits until `<kyc-onboard>` on the page reflects `state` (the host attribute). */
export async function waitForState(page: Page, state: string, timeout = 20_000): Promise<void> {
  try {
    await page.locator(`kyc-onboard[state="${state}"]`).waitFor({ state: 'attached', timeout });
  } catch (e) {
    const now = await page
      .locator('kyc-onboard')
      .getAttribute('state', { timeout: 1000 })
      .catch(() => '(no widget)');
    throw new Error(`the widget did not reach state "${state}" within ${timeout} ms; it is "${now}" on ${page.url()}`, { cause: e });
  }
}

/**
 * Waits until a field shows `value`: a prefill is applied by the run chunk, which may still be loading when the
 * page's own text about it has appeared. Fails naming what the field showed instead.
 */
export async function waitForValue(field: Locator, value: string, timeout = 10_000): Promise<void> {
  let shown = '';
  await until(async () => (shown = await field.inputValue()) === value, {
    what: `the field to show "${value}"`,
    timeoutMs: timeout,
    detail: () => `it shows "${shown}"`,
  });
}

/** Every event `<kyc-onboard>` fires on this page (and on pages it navigates to), with its detail. */
export async function recordEvents(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __kycEvents: { type: string; detail: unknown }[] };
    w.__kycEvents = [];
    for (const type of ['kyc-submit', 'kyc-link', 'kyc-redirect', 'kyc-complete', 'kyc-error']) {
      document.addEventListener(type, (e) => w.__kycEvents.push({ type, detail: (e as CustomEvent).detail }));
    }
  });
}

export async function recordedEvents(page: Page): Promise<{ type: string; detail: Record<string, unknown> }[]> {
  return page.evaluate(
    () => (window as unknown as { __kycEvents?: { type: string; detail: Record<string, unknown> }[] }).__kycEvents ?? [],
  );
}

/** The demo's event log, newest first, as the visitor reads it. */
export function eventLog(page: Page) {
  return page.getByRole('region', { name: 'Widget events' }).getByRole('listitem');
}

/** A static server on 127.0.0.1 (a partner's site on its own origin). */
export async function staticServer(
  pages: Record<string, string>,
  port = 0,
): Promise<{ url: string; port: number; stop: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const body = pages[path];
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', ok);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    stop: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations on the page as it is now (it sees into open shadow roots), one line each. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    type Result = { violations: { id: string; help: string; nodes: { target: unknown }[] }[] };
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<Result> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
  });
}
