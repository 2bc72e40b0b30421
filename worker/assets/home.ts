/**
 * `/` of a deployment that is no demo: a plain page that says what this
 * origin is. `/` is routed through the worker (`run_worker_first` in
 * wrangler.toml), since static assets are otherwise served before the worker
 * runs. The local stack puts the sales demo in front of it (demo/home.ts).
 */
import type { Context } from 'hono';
import { Hono } from 'hono/tiny';
import type { AppEnv } from '../app-env';

const PLAIN_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><title>kyc-onboard</title><p>An identity-verification service. Its widget lives on partner sites.</p>';

export function plainHome(c: Context<AppEnv>): Response {
  return c.html(PLAIN_PAGE, 200, {
    'Content-Security-Policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'Cache-Control': 'no-cache',
  });
}

export const home = new Hono<AppEnv>().get('/', plainHome);
