/** The first middleware: `c.var.config` (config.ts, read once per isolate) for every route and middleware after it. */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env';
import { config } from '../config';

export const withConfig = createMiddleware<AppEnv>(async (c, next) => {
  c.set('config', config(c.env));
  await next();
});
