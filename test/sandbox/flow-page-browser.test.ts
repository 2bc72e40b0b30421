/**
 * The hosted-flow page in real Chromium: no axe violations (desktop and
 * mobile), the buttons work by their accessible names without JavaScript,
 * and the redirect lands on the partner page with `checkId`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { after, before, beforeEach, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { sandbox } from '../../sandbox/app';
import { createVendorClient } from '../../worker/vendors/idv/client';
import { chromiumLaunchOptions } from '../support/chromium.mjs';
import { freshSandbox } from '../support/vendor-sandbox';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.SANDBOX_SCREENSHOTS; // a directory, to look at the page

let server: Server;
let origin = '';
let browser: Browser;

before(async () => {
  // The sandbox behind a plain node server, plus a "partner" page at /partner.
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url!, origin);
    if (url.pathname === '/partner') {
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end('<!doctype html><html lang="en"><title>Partner</title><h1>Back at the partner</h1></html>');
      return;
    }
    const answer = await sandbox.fetch(
      new Request(url, {
        method: req.method,
        headers: Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : [])),
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      }),
      {},
    );
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  browser = await chromium.launch(chromiumLaunchOptions());
});

after(async () => {
  await browser?.close();
  await new Promise((ok) => server?.close(ok));
});

beforeEach(() => freshSandbox());

async function link(familyName = 'Lee', redirects = true) {
  const c = createVendorClient({
    baseUrl: `${origin}/sandbox`,
    apiKey: 'sandbox-key',
    customerId: 'demo-customer',
    channel: 'api',
    timeoutMs: 3000,
    searchPath: '/v2/kyc/entity/search',
    fetch: (r) => fetch(r),
  });
  const l = await c.onboardingUrl({
    consent: true,
    entity: { name: { givenName: 'Ann', familyName } },
    ...(redirects
      ? { successRedirectURL: `${origin}/partner?kyc_return=success`, errorRedirectURL: `${origin}/partner?kyc_return=error` }
      : {}),
  });
  return { url: l.url, c, entityId: l.entity.entityId! };
}

async function axe(page: import('playwright-core').Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(async () => {
    // @ts-expect-error axe is injected above
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v: { id: string; nodes: unknown[] }) => `${v.id} (${v.nodes.length})`);
  });
  return result as string[];
}

describe('hosted-flow page in Chromium', () => {
  for (const [label, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['mobile', { width: 375, height: 740 }],
  ] as const) {
    it(`has no axe violations and fits the screen (${label})`, async () => {
      const { url } = await link();
      // bypassCSP only so that axe can be injected; the no-JS tests below run under the page's CSP.
      const context = await browser.newContext({ viewport, bypassCSP: true });
      const page = await context.newPage();
      await page.goto(url);
      assert.equal(await page.title(), 'Verify your identity · Identity verification (sandbox)');
      assert.deepEqual(await axe(page), []);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `no horizontal scrolling (${overflow}px)`);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/flow-${label}.png`, fullPage: true });
      await context.close();
    });
  }

  it('"Complete verification" works without JavaScript and lands on the partner page with checkId', async () => {
    const { url, c, entityId } = await link();
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(url);
    const bg = await page.getByRole('button', { name: 'Complete verification' }).evaluate((b) => getComputedStyle(b).backgroundColor);
    assert.equal(bg, 'rgb(11, 92, 173)', 'the stylesheet loads under the page’s own CSP');
    await page.getByRole('button', { name: 'Complete verification' }).click();
    await page.waitForURL(/\/partner\?/);
    const back = new URL(page.url());
    assert.equal(back.searchParams.get('kyc_return'), 'success');
    const checkId = back.searchParams.get('checkId')!;
    assert.equal((await c.result({ checkId, entity: { entityId } })).checkStatus, 'CHECKED_SUCCESS_CLEAR');
    await context.close();
  });

  it('"Fail verification" lands on the error URL; without redirect URLs the done page shows', async () => {
    const failing = await link();
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(failing.url);
    await page.getByRole('button', { name: 'Fail verification' }).click();
    await page.waitForURL(/kyc_return=error/);
    assert.equal((await failing.c.result({ entity: { entityId: failing.entityId } })).checkStatus, 'CHECKED_FAILED');

    const plain = await link('Lee', false);
    await page.goto(plain.url);
    await page.getByRole('button', { name: 'Complete verification' }).click();
    await page.getByRole('heading', { name: 'Verification finished' }).waitFor();
    await context.close();
  });
});
