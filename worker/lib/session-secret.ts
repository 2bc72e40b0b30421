/**
 * The secret that signs sessions and keys the identifier hashes
 * (keyed-hash.ts): SESSION_SECRET, or, while the sandbox is the vendor and it
 * is unset, the development secret of the deployment's secret source (the
 * `devSecrets` port). Apart from browser-api/session.ts so the base modules
 * that hash need nothing of the routes.
 */
import { config, type Config } from '../config';
import type { WithDevSecrets } from './dev-secrets';
import type { Env } from './env';

/** The configured secret (a real vendor needs one). */
export function configuredSessionSecret(cfg: Config): string | undefined {
  return cfg.secrets.sessionSecret;
}

/** The secret that signs sessions: the configured one, or the sandbox's development secret. */
export async function sessionSecret(env: Env, ports: WithDevSecrets): Promise<string | undefined> {
  const cfg = config(env);
  const s = configuredSessionSecret(cfg);
  if (s) return s;
  return cfg.vendor.sandbox ? (await ports.devSecrets?.(env))?.sessionSecret : undefined;
}
