/**
 * A worker `Env` for the node tier: the settings given and nothing else. The
 * node tier runs the app without the Workers runtime, so it has none of the
 * bindings `Env` types as present (they are generated from wrangler.toml):
 * the paths that read one through `bindingIfAny` go without it, and a store's
 * in-memory twin is injected by the test that needs it (test/support/). The
 * workerd tier (test/support/miniflare-worker.ts) has them all.
 */
import type { Env } from '../../worker/lib/env';

export function nodeEnv(settings: Partial<Env> = {}): Env {
  return settings as Env;
}
