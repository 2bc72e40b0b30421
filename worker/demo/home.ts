/**
 * `/` of the local stack: the sales demo while DEMO is on, otherwise the
 * plain page of assets/home.ts (a deployment is not a demo).
 *
 * The demo's banner must be true of the configuration it runs under: with a
 * real vendor (DEMO=on set on purpose) the worker swaps the sandbox's banner
 * for the real vendor's (both in demo/index.html): checks and texts are real.
 */
import { Hono } from 'hono/tiny';
import { plainHome } from '../assets/home';
import { bindingIfAny } from '../lib/env';
import type { AppEnv } from '../app-env';
import { isDeployed } from '../config';

/** The sandbox's banner, and the real vendor's, both written in demo/index.html. */
const BANNER = /<!-- vendor-banner\b[^>]*-->[\s\S]*?<!-- \/vendor-banner -->/;
const REAL_BANNER = /<template id="real-vendor-banner">([\s\S]*?)<\/template>/;

export const home = new Hono<AppEnv>().get('/', async (c) => {
  // Deployed with the sandbox and no DEMO=on, /api fails closed: no demo page over it.
  const cfg = c.var.config;
  const refused = cfg.vendor.sandbox && isDeployed(cfg, c.req.url) && !cfg.demoExplicit;
  const assets = bindingIfAny(c.env, 'ASSETS');
  if (cfg.demo && assets && !refused) {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- test/tsconfig.json compiles this file with DOM types too
    const res = await assets.fetch(c.req.raw as unknown as Parameters<typeof assets.fetch>[0]);
    // A copy: the asset's own headers are immutable, and the middleware adds to them.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- as above
    const headers = new Headers(res.headers as unknown as Headers);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- as above
    if (cfg.vendor.sandbox || !res.ok) return new Response(res.body as unknown as BodyInit, { status: res.status, headers });
    const page = await res.text();
    const html = page.replace(BANNER, () => REAL_BANNER.exec(page)?.[1] ?? '');
    headers.delete('content-length');
    headers.delete('etag'); // the body is not the asset's any more
    return new Response(html, { status: res.status, headers });
  }
  return plainHome(c);
});
