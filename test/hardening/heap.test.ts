/**
 * Memory of the worker's own code, precisely: the Hono app in node
 * (`app.request`), a fake vendor on 127.0.0.1, thousands of mixed requests,
 * and the JS heap measured after forced garbage collection between two
 * halves. Under `wrangler dev` the process RSS also grows with the local
 * runtime's own per-request records (load.test.ts), which hides small leaks;
 * here nothing but the app and the fetches it makes is on the heap. No
 * rate-limit or Durable Object bindings in node, and no Idempotency-Key (its
 * in-memory stand-in keeps up to 10,000 records by design).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { nodeApp as app } from '../support/node-app';
import type { Env } from '../../worker/lib/env';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { pool, saveResults } from './support';
import { adultDateOfBirth } from '../support/dates';
import { testSigningKeys } from '../support/signing-keys';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { nodeEnv } from '../support/node-env';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const HALF = 4000;
/** Allowed JS-heap growth between the ends of the halves: 512 bytes per request (measured: 50-110; a kept request or body would be KBs). */
const PER_REQUEST = 512;
const WORKER = 'https://kyc.worker.test';

let vendor: FakeVendor;
let env: Env;
/** Verifications are state by design (a Durable Object each in workerd): forgotten before each measurement. */
let verificationStore: MemoryVerifications;

before(async () => {
  vendor = await startFakeVendor(undefined, { record: false });
  env = nodeEnv({
    KYC_BASE_URL: vendor.url,
    KYC_API_KEY: 'heap-key',
    KYC_CUSTOMER_ID: 'heap-customer',
    SESSION_SECRET: 'heap-session-secret-1234-xxxxxxx',
    KYC_TIMEOUT_MS: '3000',
    PUBLIC_ORIGIN: WORKER,
    ALLOWED_ORIGINS: WORKER, // with DEMO off the own origin is a partner only when listed
    RESULT_SIGNING_KEYS: await testSigningKeys(),
    // One client makes every request here: the open-verification budgets
    // (20 per IP) would answer 429 after the first links. Raised, not removed,
    // so their in-memory entries are part of what is measured.
    LIMIT_OPEN_PER_IP: '1000000',
    LIMIT_OPEN_PER_PARTNER: '1000000',
  });
  useNodeTwins(env, { verifications: (verificationStore = new MemoryVerifications(env)) });
});
after(async () => {
  await vendor?.close();
});

const person = JSON.stringify({
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
});
const invalid = JSON.stringify({
  name: { familyName: 'x'.repeat(500) },
  dateOfBirth: '1990-02-30',
  phone: { code: '61', number: 'abc' },
  consent: false,
  __extra: [1, 2, 3],
});

async function heap(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

describe('heap of the worker code, in node', () => {
  it(`does not grow between two halves of ${HALF} mixed requests beyond ${PER_REQUEST} bytes per request`, async () => {
    const link = await app.request(
      `${WORKER}/api/onboarding-link`,
      { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: WORKER }, body: person },
      env,
    );
    assert.equal(link.status, 200);
    const { session, verificationId } = (await link.json()) as { session: string; verificationId: string };
    /** Heap after GC, once the verifications made meanwhile are forgotten (a Durable Object each in production). */
    const measure = () => {
      verificationStore.forgetAllBut(verificationId);
      return heap();
    };
    const kinds: [string, RequestInit, number][] = [
      ['/api/onboarding-link', { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: WORKER }, body: person }, 200],
      ['/api/onboarding-link', { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: WORKER }, body: invalid }, 400],
      [
        '/api/result',
        { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: WORKER }, body: JSON.stringify({ session }) },
        200,
      ],
      [
        '/api/result',
        { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: WORKER }, body: '{"session":"x.y.z"}' },
        401,
      ],
      ['/api/ruok', {}, 200],
      [
        '/api/onboarding-link',
        { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example' }, body: person },
        403,
      ],
      ['/api/onboarding-link', { method: 'DELETE', headers: { Origin: WORKER } }, 405],
    ];
    const silenced = console.log;
    console.log = () => {}; // the app's one log line per request would fill the test's output
    const wrong: string[] = [];
    const half = async () => {
      await pool(
        Array.from({ length: HALF }, (_, i) => i),
        16,
        async (i) => {
          const [path, init, status] = kinds[i % kinds.length]!;
          const res = await app.request(WORKER + path, init, env);
          await res.arrayBuffer();
          if (res.status !== status) wrong.push(`${path} ${res.status}`);
        },
      );
    };
    let h0: number, h1: number, h2: number;
    try {
      await half(); // warm-up: JIT, caches, connection pool
      h0 = await measure();
      await half();
      h1 = await measure();
      await half();
      h2 = await measure();
    } finally {
      console.log = silenced;
    }
    const growth = h2 - h1;
    const figures = {
      date: new Date().toISOString(),
      requestsPerHalf: HALF,
      heapMB: { afterWarmup: +(h0 / 1048576).toFixed(1), afterHalfA: +(h1 / 1048576).toFixed(1), afterHalfB: +(h2 / 1048576).toFixed(1) },
      growthBytesPerRequest: Math.round(growth / HALF),
      allowedBytesPerRequest: PER_REQUEST,
    };
    saveResults('heap', figures);
    console.log(JSON.stringify(figures));
    assert.deepEqual(wrong.slice(0, 5), [], 'every request got its expected status');
    assert.ok(growth <= PER_REQUEST * HALF, `heap grew ${growth} bytes over ${HALF} requests`);
  });
});
