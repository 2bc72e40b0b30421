/**
 * Who calls `/v1`: `Authorization: Bearer kyc_sk_…`, hashed (SHA-256) and
 * compared with the hashes each partner has: the environment's partner
 * (secret PARTNER_SERVER_KEYS, one or two keys), a plugged partner source's
 * keys (the local stack's demo partners: development keys made on first use), the registry's
 * partners (up to two hashes each; KV `serverkey:<hash>` names the partner,
 * its record is the truth). A missing, malformed or unknown key is one and
 * the same 401.
 */
import { config } from '../config';
import { bindingIfAny, type Env } from '../lib/env';
import { ApiError } from '../lib/errors';
import { ENVIRONMENT_PARTNER_ID, serverKeyIndexKey, type Partner } from '../partners/partner';
import { partnerById, pluggedPartners } from '../partners/resolve';
import { bearerKey, hashIn, SERVER_KEY, serverKeyHash } from './keys';

export const unauthenticated = () =>
  new ApiError(401, 'UNAUTHENTICATED', 'A valid server key is required: Authorization: Bearer kyc_sk_…', [], {
    'WWW-Authenticate': 'Bearer realm="kyc-onboard", charset="UTF-8"',
  });

/** PARTNER_SERVER_KEYS hashed once per configuration (every /v1 request asks). */
const envHashes = new WeakMap<readonly string[], Promise<string[]>>();
function environmentKeyHashes(env: Env): Promise<string[]> {
  const configured = config(env).secrets.partnerServerKeys;
  let hashes = envHashes.get(configured);
  if (!hashes) envHashes.set(configured, (hashes = Promise.all(configured.filter((k) => SERVER_KEY.test(k)).map(serverKeyHash))));
  return hashes;
}

export interface Caller {
  partner: Partner;
  /** The key's hash: what its rate limit counts by. */
  keyHash: string;
}

/** The partner a request's key belongs to; throws the one 401 otherwise. */
export async function authenticate(env: Env, requestUrl: string, authorization: string | undefined): Promise<Caller> {
  const key = bearerKey(authorization);
  if (!key) throw unauthenticated();
  const hash = await serverKeyHash(key);
  // Every source is asked, whatever matched first: the time taken says nothing about which.
  const source = pluggedPartners();
  const [envMatch, pluggedId, registryId] = await Promise.all([
    environmentKeyHashes(env).then((hs) => hashIn(hash, hs)),
    Promise.resolve(source?.serverKeys?.(env)).then(async (keys) => {
      let found: string | undefined;
      for (const id of source?.ids ?? []) {
        const k = keys?.[id];
        if (k && hashIn(hash, [await serverKeyHash(k)])) found = id;
      }
      return found;
    }),
    bindingIfAny(env, 'PARTNERS')?.get(serverKeyIndexKey(hash)) ?? Promise.resolve(null),
  ]);
  let partner: Partner | undefined;
  if (envMatch) partner = await partnerById(env, requestUrl, ENVIRONMENT_PARTNER_ID);
  else if (pluggedId) partner = await partnerById(env, requestUrl, pluggedId);
  else if (registryId) {
    const p = await partnerById(env, requestUrl, registryId);
    // The record is the truth: an index entry left by a rotation grants nothing.
    if (p?.source === 'registry' && hashIn(hash, p.serverKeyHashes ?? [])) partner = p;
  }
  if (!partner) throw unauthenticated();
  return { partner, keyHash: hash };
}
