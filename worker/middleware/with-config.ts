/**
 * The first middleware: `c.var.config` (config.ts, read once per isolate) and
 * `c.var.clock` (the app's clock, lib/clock.ts) for every route and
 * middleware after it.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env';
import { config } from '../config';
import { systemClock, type Clock } from '../lib/clock';

export const withConfig = (clock: Clock = systemClock) =>
  createMiddleware<AppEnv>(async (c, next) => {
    c.set('config', config(c.env));
    c.set('clock', clock);
    await next();
  });
