/**
 * POST /api/beacon: the widget's `widget.shown` (one `navigator.sendBeacon`
 * per element per page view; attribute `no-beacon` turns it off). The partner
 * is the page's Origin (the /api middleware resolved it, and refused other
 * origins); the body is ignored, no cookie is read or set, nothing about the
 * browser is kept. 204, whatever the queue does.
 */
import type { Context } from 'hono';
import { Hono } from 'hono/tiny';
import type { AppEnv } from '../app-env';
import { track } from './track';

const shown = (c: Context<AppEnv>) => {
  track(c, { type: 'widget.shown' });
  return c.body(null, 204);
};

// The widget appends `/beacon` to its endpoint as written: `endpoint=".../api/"` makes it `/api//beacon`
// (a pattern, since the router does not take an empty path segment literally).
/** The beacon's paths, as the widget may write them (its answer may be read cross-origin: app.ts). */
export const BEACON_PATH = /^\/api\/\/?beacon$/;

export const beacon = new Hono<AppEnv>().post('/beacon', shown).post('/:double{/}beacon', shown);
