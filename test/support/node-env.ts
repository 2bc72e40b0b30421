/**
 * A worker `Env` for the node tier: the settings given and nothing else. The
 * node tier runs the app without the Workers runtime, so it has none of the
 * bindings `Env` types as present (they are generated from wrangler.toml):
 * the paths that read one through `bindingIfAny` go without it, and a store's
 * in-memory twin is injected by the test that needs it (test/support/). The
 * rate limits, which the worker refuses to run without, get limiters that
 * never refuse unless the test gives its own. The workerd tier
 * (test/support/miniflare-worker.ts) has the real bindings.
 */
import type { Env } from '../../worker/lib/env';

/** A rate limiter that lets everything through (the node tier counts nothing per window). */
export const unlimited: RateLimit = { limit: async () => ({ success: true }) };

export function nodeEnv(settings: Partial<Env> = {}): Env {
  return { RL_IP: unlimited, RL_IP_48: unlimited, RL_SMS: unlimited, RL_SERVER_KEY: unlimited, RL_SEARCH: unlimited, ...settings } as Env;
}
