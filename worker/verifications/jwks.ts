/**
 * GET /.well-known/jwks.json — the public keys of result tokens, every
 * configured key (the first signs; the others stay published through a
 * rotation). Cached five minutes: a new key is added second and moved first
 * only after that max-age has passed.
 */
import { Hono } from 'hono/tiny';
import { cors } from 'hono/cors';
import type { AppEnv } from '../app-env';
import { ApiError } from '../lib/errors';
import { signingKeys } from './signing-keys';

export const JWKS_MAX_AGE_SECONDS = 300;

export const jwks = new Hono<AppEnv>().get('/.well-known/jwks.json', cors({ origin: '*', allowMethods: ['GET'] }), async (c) => {
  const keys = await signingKeys(c.env, c.var.ports);
  if (!keys) throw new ApiError(500, 'MISCONFIGURED', 'No result-signing keys are configured.');
  c.header('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
  return c.json({ keys: keys.map((k) => k.publicJwk) });
});
