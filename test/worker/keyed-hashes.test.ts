/**
 * No store keeps an identifier under a hash anyone could recompute: the
 * limits store's budget keys (a number's texts per day, a client's open
 * verifications), the verification's holds and the idempotency record's
 * body fingerprint are HMACs under a key derived from the session secret.
 * A plain SHA-256 of "sms-day +61412345678" is a brute force over the national
 * number range away from the number. The app runs in node with its stores'
 * in-memory twins, so every stored value can be read back.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Env } from '../../worker/lib/env';
import { keyedHash } from '../../worker/lib/keyed-hash';
import { MemoryAllowances, MemoryVerifications, memoryIdempotency, useNodeTwins } from '../support/node-twins';
import { baseEnv, call, okVendor, person, startHarness, stopHarness, vendor } from './harness';

before(startHarness);
after(stopHarness);

const E164 = '+61412345678';
const IP = '203.0.113.77';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A deployment of its own: stores in memory that the test can read. */
function deployment(vars: Partial<Env> = {}) {
  const e: Env = { ...baseEnv, ...vars };
  const limits = new MemoryAllowances();
  const records = new MemoryVerifications(e);
  const idempotency = new Map<string, unknown>();
  const store = memoryIdempotency();
  useNodeTwins(e, {
    verifications: records,
    allowances: limits,
    idempotency: {
      claim: (k, print) => (idempotency.set(k, print), store.claim(k, print)),
      finish: (k, print, answer) => (idempotency.set(k, print), store.finish(k, print, answer)),
      release: (k, print, verified) => store.release(k, print, verified),
    },
  });
  return { e, limits, records, idempotency };
}

async function textedLink(e: Env) {
  const res = await call(
    '/api/onboarding-link',
    {
      method: 'POST',
      json: { ...person, sendSMS: true },
      headers: { 'CF-Connecting-IP': IP, 'Idempotency-Key': `keyed-${crypto.randomUUID()}` },
    },
    e,
  );
  assert.equal(res.status, 200, res.text);
}

describe('keyed hashes of identifiers', () => {
  it('the limits store, the holds and the idempotency record hold no plain hash of the number, the address or the body', async () => {
    vendor(...okVendor);
    const d = deployment();
    await textedLink(d.e);
    const stored = JSON.stringify({
      budgets: [...d.limits.budgets.keys()],
      records: [...d.records.records.values()],
      prints: [...d.idempotency.values()],
    });
    const body = JSON.stringify({ ...person, sendSMS: true });
    for (const plain of [
      sha256(`sms-day ${E164}`).slice(0, 32),
      sha256(`open-ip ${IP}`).slice(0, 32),
      sha256(body),
      E164,
      IP,
      '412345678',
    ]) {
      assert.ok(!stored.includes(plain), `a store holds ${plain}`);
    }
    const keys = [...d.limits.budgets.keys()];
    assert.ok(keys.includes(`sms-day ${await keyedHash(d.e, {}, 'sms-day', E164, 16)}`), keys.join(', '));
    assert.ok(keys.includes(`open-ip ${await keyedHash(d.e, {}, 'open-ip', IP, 16)}`), keys.join(', '));
  });

  it('another deployment secret gives other names: the key is the deployment’s', async () => {
    vendor(...okVendor);
    const a = deployment();
    const b = deployment({ SESSION_SECRET: 'another-session-secret-5b4a3c2d1e' });
    await textedLink(a.e);
    vendor(...okVendor);
    await textedLink(b.e);
    const smsKey = (d: ReturnType<typeof deployment>) => [...d.limits.budgets.keys()].find((k) => k.startsWith('sms-day '));
    assert.ok(smsKey(a) && smsKey(b));
    assert.notEqual(smsKey(a), smsKey(b));
  });
});
