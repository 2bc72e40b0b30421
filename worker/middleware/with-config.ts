/**
 * The first middleware: `c.var.config` (config.ts, read once per isolate),
 * `c.var.clock` (the app's clock, lib/clock.ts) and `c.var.ports` (the stores
 * and plug-ins, ports-for.ts) for every route and middleware after it.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env';
import { config } from '../config';
import { systemClock, type Clock } from '../lib/clock';
import { portsFor } from '../ports-for';
import type { PortOverrides } from '../ports';

export const withConfig = (clock: Clock = systemClock, ports: PortOverrides = {}) =>
  createMiddleware<AppEnv>(async (c, next) => {
    c.set('config', config(c.env));
    c.set('clock', clock);
    c.set('ports', portsFor(c.env, ports));
    await next();
  });
