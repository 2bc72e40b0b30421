/**
 * The partner's default country (node: the real app through `app.request`, an in-memory KV as the registry): what
 * `GET /api/settings` tells the widget, from the environment's `DEFAULT_COUNTRY` or the registry's `defaultCountry`;
 * a malformed `DEFAULT_COUNTRY` is `500 MISCONFIGURED` naming it, a malformed `defaultCountry` is refused before it
 * is written.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { KVNamespace } from '@cloudflare/workers-types';
import { buildRecord, InputError, writeRecord, type PartnerInput, type RegistryStore } from '../../worker/partners/admin';
import { clearPartnerCache } from '../../worker/partners/registry';
import { publicJwk } from '../../worker/partners/sealing';
import { baseEnv, call, PARTNER, startHarness, stopHarness } from './harness';

const ALPHA = 'https://alpha.example';
const alpha: PartnerInput = { displayName: 'Alpha Bank', origins: [ALPHA], childId: 'child-alpha', apiKey: 'alpha-vendor-key-7Hq2Lm9' };

let key: JWK;
before(async () => {
  startHarness();
  const { privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
  key = { ...(await exportJWK(privateKey)), kid: 'seal-1' };
});
after(stopHarness);
beforeEach(clearPartnerCache);

/** An in-memory registry (KV for the worker, a RegistryStore for the admin side). */
function registry() {
  const data = new Map<string, string>();
  const kv = { get: async (k: string) => data.get(k) ?? null } as unknown as KVNamespace;
  const store: RegistryStore = {
    get: async (k) => data.get(k) ?? null,
    put: async (k, v) => void data.set(k, v),
    delete: async (k) => void data.delete(k),
    list: async (p) => [...data.keys()].filter((k) => k.startsWith(p)),
  };
  return { kv, store };
}

const settingsOf = (origin: string, env = baseEnv) => call('/api/settings', { headers: { Origin: origin } }, env);

describe('GET /api/settings: the default country', () => {
  it('answers the environment partner’s DEFAULT_COUNTRY (upper case), nothing else; none when unset', async () => {
    // Besides the country: whether and where texting goes (test/worker/min-age.test.ts), the same for every partner here.
    const texting = { sms: true, smsCountries: ['AU', 'NZ', 'GB', 'IE', 'US', 'CA'] };
    const set = await settingsOf(PARTNER, { ...baseEnv, DEFAULT_COUNTRY: ' de ' });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.json, { defaultCountry: 'DE', ...texting });
    assert.equal(set.headers.get('Access-Control-Allow-Origin'), PARTNER);
    const unset = await settingsOf(PARTNER);
    assert.equal(unset.status, 200, unset.text);
    assert.deepEqual(unset.json, texting);
  });

  it('a page of no partner learns nothing: {} and no CORS grant', async () => {
    const res = await settingsOf('https://evil.example', { ...baseEnv, DEFAULT_COUNTRY: 'DE' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {});
    assert.equal(res.headers.get('Access-Control-Allow-Origin'), null);
  });

  it('a same-origin GET (no Origin header: the demo page) is answered, not refused (no console error)', async () => {
    const res = await call('/api/settings', {}, { ...baseEnv, DEFAULT_COUNTRY: 'DE' });
    assert.equal(res.status, 200, res.text);
  });

  for (const bad of ['Germany', 'D1', 'XX', 'DEU']) {
    it(`DEFAULT_COUNTRY=${bad} is 500 MISCONFIGURED naming DEFAULT_COUNTRY (never its value), on every /api route`, async () => {
      const env = { ...baseEnv, DEFAULT_COUNTRY: bad };
      for (const res of [await settingsOf(PARTNER, env), await call('/api/ruok', {}, env)]) {
        assert.equal(res.status, 500, res.text);
        assert.equal(res.json.errorCode, 'MISCONFIGURED');
        assert.deepEqual(
          res.json.issues.map((i: { issueLocation: string }) => i.issueLocation),
          ['DEFAULT_COUNTRY'],
        );
        // The requestId is a random ULID, which may hold any two capitals ("XX"): look everywhere but there.
        const { requestId: _requestId, ...said } = res.json as Record<string, unknown>;
        assert.equal(JSON.stringify(said).includes(bad), false);
      }
    });
  }

  it('a registry partner’s defaultCountry, else the environment’s', async () => {
    const reg = registry();
    await writeRecord(reg.store, await buildRecord('alpha', { ...alpha, defaultCountry: 'nz' }, publicJwk(key), { sandbox: false }));
    const env = { ...baseEnv, PARTNERS: reg.kv, PARTNER_SEALING_KEY: JSON.stringify(key), DEFAULT_COUNTRY: 'DE' };
    assert.deepEqual((await settingsOf(ALPHA, env)).json, {
      defaultCountry: 'NZ',
      sms: true,
      smsCountries: ['AU', 'NZ', 'GB', 'IE', 'US', 'CA'],
    });
    clearPartnerCache();
    const plain = registry();
    await writeRecord(plain.store, await buildRecord('alpha', alpha, publicJwk(key), { sandbox: false }));
    assert.deepEqual((await settingsOf(ALPHA, { ...env, PARTNERS: plain.kv })).json, {
      defaultCountry: 'DE',
      sms: true,
      smsCountries: ['AU', 'NZ', 'GB', 'IE', 'US', 'CA'],
    });
  });

  it('the registry refuses a defaultCountry that is not an ISO 3166 alpha-2 country, naming the field', async () => {
    for (const bad of ['Germany', 'XX', 'D']) {
      await assert.rejects(
        buildRecord('alpha', { ...alpha, defaultCountry: bad }, publicJwk(key), { sandbox: false }),
        (e: unknown) => e instanceof InputError && e.problems.some((p) => p.startsWith('defaultCountry:')),
      );
    }
  });
});
