/**
 * `/widget@<version>-<hash>.js`: the widget's entry under a URL that changes
 * whenever its content does (scripts/build-package.mjs), served immutable with
 * the CORS and CORP headers a cross-origin module script needs, so partners
 * can pin it with `integrity` (SRI).
 *
 * Through the worker, not as a static asset: the asset server answers a path
 * with `@` by redirecting to its percent-encoded form, and a redirect without
 * CORS headers makes the browser refuse a cross-origin module script. The
 * file itself is the static asset `/pinned/<version>-<hash>.js`.
 */
import { Hono } from 'hono/tiny';
import { bindingIfAny } from '../lib/env';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';

const PINNED = /^widget@([0-9A-Za-z.+-]+)\.js$/;

/** The paths this route answers (app.ts relaxes the resource policy on them). */
export const PINNED_WIDGET_PATH = /^\/widget@[0-9A-Za-z.+-]+\.js$/;

export const pinnedWidget = new Hono<AppEnv>().get('/:file{widget@[0-9A-Za-z.+-]+\\.js}', async (c) => {
  const id = PINNED.exec(c.req.param('file'))?.[1];
  const assets = bindingIfAny(c.env, 'ASSETS');
  if (!id || !assets) throw new ApiError(404, 'NOT_FOUND', 'There is nothing here.');
  const res = await assets.fetch(new URL(`/pinned/${id}.js`, c.req.url).href);
  if (!res.ok) throw new ApiError(404, 'NOT_FOUND', 'There is nothing here.');
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- test/tsconfig.json compiles this file with DOM types too
  return new Response(res.body as unknown as BodyInit, {
    status: 200,
    headers: {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=31536000, immutable',
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
    },
  });
});
