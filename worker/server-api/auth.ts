/**
 * Who calls `/v1`: `Authorization: Bearer kyc_sk_…`, hashed (SHA-256) and
 * compared with the hashes each partner has: the environment's partner
 * (secret PARTNER_SERVER_KEYS, one or two keys), a plugged partner source's
 * keys (the local stack's demo partners: development keys made on first use), the registry's
 * partners (up to two hashes each; KV `serverkey:<hash>` names the partner,
 * its record is the truth). A missing, malformed or unknown key is one and
 * the same 401.
 */
import { log } from '../lib/log';
import { config } from '../config';
import { bindingIfAny, type Env } from '../lib/env';
import { ApiError } from '../lib/errors';
import { ENVIRONMENT_PARTNER_ID, serverKeyIndexKey, type Partner } from '../partners/partner';
import { partnerById } from '../partners/resolve';
import type { Ports } from '../ports';
import { bearerKey, hashIn, keyMode, SERVER_KEY, serverKeyHash } from './keys';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="kyc-onboard", charset="UTF-8"' };
export const unauthenticated = () =>
  new ApiError(401, 'UNAUTHENTICATED', 'A valid server key is required: Authorization: Bearer kyc_sk_…', [], CHALLENGE);

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
/**
 * The other mode's key is refused before any look-up, with a message that
 * says so: the mistake (a sandbox key in a live configuration, or the
 * reverse) is found at once, not by its effects. The key's mode is written in
 * the key itself, so saying it tells the caller nothing it did not send.
 */
function wrongMode(key: string, livemode: boolean): ApiError | undefined {
  const mode = keyMode(key);
  if (mode === 'test' && livemode)
    return new ApiError(401, 'UNAUTHENTICATED', 'A test key on a live deployment: use your kyc_sk_live_ key.', [], CHALLENGE);
  if (mode === 'live' && !livemode)
    return new ApiError(
      401,
      'UNAUTHENTICATED',
      'A live key on a test deployment (its vendor is the sandbox): use your kyc_sk_test_ key.',
      [],
      CHALLENGE,
    );
  return undefined;
}

export async function authenticate(
  env: Env,
  ports: Ports,
  requestUrl: string,
  authorization: string | undefined,
  livemode: boolean,
): Promise<Caller> {
  const key = bearerKey(authorization);
  if (!key) throw unauthenticated();
  const refused = wrongMode(key, livemode);
  if (refused) throw refused;
  const hash = await serverKeyHash(key);
  // Every source is asked, whatever matched first: the time taken says nothing about which.
  const source = ports.partnerSource;
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
  if (envMatch) partner = await partnerById(env, ports, requestUrl, ENVIRONMENT_PARTNER_ID);
  else if (pluggedId) partner = await partnerById(env, ports, requestUrl, pluggedId);
  else if (registryId) {
    const p = await partnerById(env, ports, requestUrl, registryId);
    // The record is the truth: an index entry left by a rotation grants nothing.
    if (p?.source === 'registry' && hashIn(hash, p.serverKeyHashes ?? [])) partner = p;
  }
  if (!partner) throw unauthenticated();
  if (keyMode(key) === undefined) {
    // Still accepted (made before keys said their mode); the operator learns which partner should rotate.
    log.warn('server_key_without_mode', { partnerId: partner.id, fix: 'npm run partners -- rotate-server-key' });
  }
  return { partner, keyHash: hash };
}
