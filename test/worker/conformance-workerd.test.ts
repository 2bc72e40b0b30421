/**
 * The executor's conformance suite (test/verifications/conformance.ts) against
 * the real Durable Object in workerd (Miniflare), through its one RPC method.
 * The in-memory host passes the same cases (conformance.test.ts).
 */
import { after, before, describe, it } from 'node:test';
import { cases } from '../verifications/conformance';
import { startMiniflareWorker, verificationObject, type MiniflareWorker } from '../support/miniflare-worker';
import { realNow } from '../support/dates';

let worker: MiniflareWorker;

before(async () => {
  worker = await startMiniflareWorker();
});
after(async () => {
  await worker.stop();
});

describe('the verification executor, as the Durable Object', () => {
  for (const c of cases) {
    it(c.name, async () => {
      await c.run({
        execute: async (id, command) => (await verificationObject(worker, id)).execute(command),
        now: realNow,
      });
    });
  }
});
