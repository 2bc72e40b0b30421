/**
 * Item 5: end to end, with the sandbox as the vendor. A partner page on its
 * own origin (the bench page server) embeds the worker's /widget.js exactly as
 * README tells partners to; the person has filled the form; the clock starts
 * at the click on "Verify my identity" (the click event's own timestamp, in
 * the page) and stops when the hosted-flow page (/sandbox/flow/…) has fired
 * its load event (its navigation timing's loadEventEnd). Both are read from
 * the browser's clock, so the automation's round trips are not counted.
 *
 * Baseline, in the same run and the same browser: a hand-written plain form
 * on the same page server that does the least any client must do: one fetch
 * of /api/onboarding-link (with an Idempotency-Key, as the widget sends, so
 * the worker does the same work) and `location.assign(url)`. The ratio is the cost
 * of the widget's own work on top of the worker, the sandbox and the page load.
 * Fresh browser context per run (no cache, no session); runs alternate.
 */
import type { Browser, Page } from 'playwright-core';
import { startWorker } from './lib/worker';
import { startPageServer } from './lib/page-server';
import { ratio, summary, withTimeout } from './lib/stats';
import { adultDateOfBirth } from '../test/support/dates';

const PERSON = { given: 'Ada', family: 'Lovelace', dob: adultDateOfBirth(), code: '+61', mobile: '0412 345 678' };

function widgetPage(worker: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner page (bench)</title>
<script type="module" src="${worker}/widget.js"></script></head>
<body><main><h1>Open an account</h1><kyc-onboard endpoint="${worker}/api"></kyc-onboard></main></body></html>`;
}

function plainPage(worker: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Plain form (bench baseline)</title></head>
<body><main><h1>Open an account</h1>
<form id="f">
<label>Given name <input name="givenName"></label>
<label>Family name <input name="familyName"></label>
<label>Date of birth <input name="dateOfBirth" type="date"></label>
<label>Country code <input name="code"></label>
<label>Mobile number <input name="number"></label>
<label><input name="consent" type="checkbox"> I agree</label>
<button>Verify my identity</button>
</form></main>
<script type="module">
const f = document.getElementById('f');
f.addEventListener('submit', async (e) => {
  e.preventDefault();
  const v = (n) => f.elements[n].value;
  const res = await fetch(${JSON.stringify(worker + '/api/onboarding-link')}, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
    body: JSON.stringify({
      name: { givenName: v('givenName'), familyName: v('familyName') },
      dateOfBirth: v('dateOfBirth'),
      phone: { code: v('code'), number: v('number') },
      consent: f.elements.consent.checked,
      returnUrl: location.origin + location.pathname,
    }),
  });
  const answer = await res.json();
  location.assign(answer.url);
});
</script></body></html>`;
}

export interface E2eResult {
  runs: number;
  widget: ReturnType<typeof summary> & { api: ReturnType<typeof summary> };
  plain: ReturnType<typeof summary> & { api: ReturnType<typeof summary> };
  /** widget median / plain-form median */
  ratio: number;
  addedMs: number;
}

async function fill(page: Page) {
  await page.getByLabel('Given name').first().fill(PERSON.given);
  await page.getByLabel('Family name').fill(PERSON.family);
  // The widget's date of birth is a group of Day, Month and Year; the plain form's a date input.
  const dob = page.getByRole('group', { name: 'Date of birth' });
  if (await dob.count()) {
    const [y, m, d] = PERSON.dob.split('-');
    await dob.getByLabel('Day').fill(d!);
    await dob.getByLabel('Month').fill(m!);
    await dob.getByLabel('Year').fill(y!);
  } else await page.getByLabel('Date of birth').fill(PERSON.dob);
  await page.getByLabel('Country code').fill(PERSON.code);
  await page.getByLabel('Mobile number').fill(PERSON.mobile);
  await page.getByRole('checkbox').check();
}

/** Every run creates a link; the per-IP limiter allows 60 a minute from the browser's one address (below). */
const MAX_RUNS = 25;

/**
 * The browser has one address, and the worker's per-client limit (RL_IP: 60
 * /api requests per clock-aligned minute, preflights and the beacon
 * included) is what a person gets: a run that would cross it waits for the
 * next minute instead, so every run measures the worker rather than its 429.
 */
const PER_MINUTE = 60;

/** Counts the /api requests the browser sends and waits for the next minute before a run that would not fit. */
function minuteBudget(workerUrl: string) {
  let window = Math.floor(Date.now() / 60_000);
  let used = 0;
  let perRun = 6; // until measured: OPTIONS + POST for the link, the beacon, a margin
  return {
    /** A request the page sent; a POST counts twice (its CORS preflight, which the browser does not report, counts too). */
    seen(url: string, method: string) {
      if (!url.startsWith(`${workerUrl}/api/`)) return;
      const now = Math.floor(Date.now() / 60_000);
      if (now !== window) [window, used] = [now, 0];
      used += method === 'POST' ? 2 : 1;
    },
    ran(requests: number) {
      perRun = Math.max(perRun, requests + 1);
    },
    async room(): Promise<void> {
      const now = Math.floor(Date.now() / 60_000);
      if (now !== window) [window, used] = [now, 0];
      if (used + perRun <= PER_MINUTE) return;
      await new Promise((ok) => setTimeout(ok, (window + 1) * 60_000 - Date.now() + 200));
      [window, used] = [Math.floor(Date.now() / 60_000), 0];
    },
  };
}

export async function endToEnd(browser: Browser, runs: number, log: (s: string) => void): Promise<E2eResult> {
  runs = Math.min(runs, MAX_RUNS);
  const server = await startPageServer();
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    // One browser makes every run's verification and leaves it open on the hosted flow: more than the 20 one
    // client may hold open (LIMIT_OPEN_PER_IP), as many people behind one address would.
    worker = await startWorker({ vars: { ALLOWED_ORIGINS: server.url, LIMIT_OPEN_PER_IP: '1000' }, timeoutMs: 60_000 });
    server.set('/widget.html', { type: 'text/html', body: widgetPage(worker.url) });
    server.set('/plain.html', { type: 'text/html', body: plainPage(worker.url) });
    const js = await fetch(`${worker.url}/widget.js`);
    await js.arrayBuffer();
    if (!js.ok) throw new Error(`${worker.url}/widget.js answered ${js.status}: run npm run build`);

    const budget = minuteBudget(worker.url);
    const one = async (which: 'widget' | 'plain') => {
      await budget.room();
      const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
      let requests = 0;
      context.on('request', (r) => {
        if (r.url().startsWith(`${worker!.url}/api/`)) requests += r.method() === 'POST' ? 2 : 1;
        budget.seen(r.url(), r.method());
      });
      try {
        let clickAt: number | undefined;
        await context.exposeFunction('__benchClick', (t: number) => void (clickAt = t));
        await context.addInitScript(() => {
          addEventListener(
            'click',
            (e) => {
              const w = window as unknown as { __benchClick?: (t: number) => void };
              if (e.isTrusted) w.__benchClick?.(performance.timeOrigin + e.timeStamp);
            },
            true,
          );
        });
        const page = await context.newPage();
        await page.goto(`${server.url}/${which}.html`, { waitUntil: 'load', timeout: 15_000 });
        await fill(page);
        await page.evaluate(() => 0); // the checkbox's click report has arrived
        clickAt = undefined;
        const api = page.waitForResponse((r) => r.url().endsWith('/api/onboarding-link') && r.request().method() === 'POST', {
          timeout: 15_000,
        });
        const flow = page.waitForResponse(
          (r) => /\/sandbox\/flow\/[^/]+$/.test(new URL(r.url()).pathname) && r.request().isNavigationRequest(),
          { timeout: 20_000 },
        );
        // Both are awaited below; a failure before then must not surface as an unhandled rejection.
        api.catch(() => {});
        flow.catch(() => {});
        await page.getByRole('button', { name: 'Verify my identity' }).click({ noWaitAfter: true });
        const response = await api;
        if (response.status() !== 200)
          throw new Error(`${which}: /api/onboarding-link answered ${response.status()}: ${await response.text().catch(() => '')}`);
        const flowResponse = await flow;
        if (flowResponse.status() !== 200) throw new Error(`${which}: the hosted-flow page answered ${flowResponse.status()}`);
        await page.waitForURL(/\/sandbox\/flow\//, { waitUntil: 'load', timeout: 15_000 });
        await page.waitForFunction(
          () => ((performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.loadEventEnd ?? 0) > 0,
          undefined,
          {
            timeout: 10_000,
          },
        );
        const loadEnd = await page.evaluate(
          () => performance.timeOrigin + (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd,
        );
        if (clickAt === undefined) throw new Error(`${which}: the click was not seen`);
        const timing = response.request().timing();
        return { total: loadEnd - clickAt, api: timing.responseEnd };
      } finally {
        await context.close();
        budget.ran(requests);
      }
    };

    await one('widget'); // warm-up: discarded
    await one('plain');
    const t = { widget: [] as number[], plain: [] as number[] };
    const api = { widget: [] as number[], plain: [] as number[] };
    for (let i = 0; i < runs; i++) {
      const order: ('widget' | 'plain')[] = i % 2 ? ['plain', 'widget'] : ['widget', 'plain'];
      for (const which of order) {
        const r = await withTimeout(one(which), 60_000, `end-to-end ${which}`);
        t[which].push(r.total);
        api[which].push(r.api);
      }
    }
    const w = summary(t.widget, 1);
    const p = summary(t.plain, 1);
    log(`  widget ${w.median} ms, plain form ${p.median} ms (medians of ${runs})`);
    return {
      runs,
      widget: { ...w, api: summary(api.widget, 1) },
      plain: { ...p, api: summary(api.plain, 1) },
      ratio: ratio(w.median, p.median),
      addedMs: Math.round((w.median - p.median) * 10) / 10,
    };
  } finally {
    await worker?.stop();
    await server.close();
  }
}
