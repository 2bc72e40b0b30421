/**
 * `/`: the sales demo while DEMO is on, otherwise a plain page that says what
 * this origin is (a deployment is not a demo). `/` is routed through the
 * worker (`run_worker_first` in wrangler.toml), since static assets are
 * otherwise served before the worker runs.
 *
 * The demo's banner must be true of the configuration it runs under: with a
 * real vendor (DEMO=on set on purpose) it says that records and texts are real.
 */
import { Hono } from 'hono';
import { demoEnabled, usesSandbox, type AppEnv } from '../env';

/** What demo/index.html says between its vendor-banner markers, as the worker replaces it for a real vendor. */
export const REAL_VENDOR_BANNER =
  '<span class="long"><span data-partner-name>Harbourline Bank</span> is fictional, but this demo runs against a real verification provider: every submission creates a record there and text messages go to real phones.</span><span class="short">Fictional bank, real vendor: checks and texts are real.</span>';

const BANNER = /<!-- vendor-banner\b[^>]*-->[\s\S]*?<!-- \/vendor-banner -->/;

const PLAIN_PAGE = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kyc-onboard</title>
<h1>kyc-onboard</h1>
<p>This is an identity-verification service. Its widget is embedded on partner sites; there is nothing to use here.</p>
`;

export const home = new Hono<AppEnv>().get('/', async (c) => {
  if (demoEnabled(c.env) && c.env.ASSETS) {
    const res = await c.env.ASSETS.fetch(c.req.raw as unknown as Parameters<NonNullable<typeof c.env.ASSETS>['fetch']>[0]);
    // A copy: the asset's own headers are immutable, and the middleware adds to them.
    const headers = new Headers(res.headers as unknown as Headers);
    if (usesSandbox(c.env) || !res.ok) return new Response(res.body as unknown as BodyInit, { status: res.status, headers });
    const html = (await res.text()).replace(BANNER, REAL_VENDOR_BANNER);
    headers.delete('content-length');
    headers.delete('etag'); // the body is not the asset's any more
    return new Response(html, { status: res.status, headers });
  }
  return c.html(PLAIN_PAGE, 200, {
    'Content-Security-Policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'Cache-Control': 'no-cache',
  });
});
