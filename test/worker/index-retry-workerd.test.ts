/**
 * A missed index write is written again until it lands (issue 40): a
 * verification that finished while its D1 table could not be written (here:
 * renamed away, as a schema change half applied or an outage would leave it)
 * is listed as final once the table is back, without any further change to
 * the verification (its alarm writes the row again). Workerd through
 * Miniflare, the sandbox as the vendor.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adultDateOfBirth } from '../support/dates';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';
import { until as waitFor } from '../support/wait';

/** `get`'s first value (the shared wait, test/support/wait.ts), the worker's log shown when it times out. */
const until = <T>(what: string, get: () => Promise<T | undefined>, logs: () => string, ms = 60_000): Promise<T> =>
  waitFor(get, { what, timeoutMs: ms, detail: logs });

describe('a missed index write, in workerd', () => {
  let w: MiniflareWorker;
  before(async () => {
    w = await startMiniflareWorker();
  });
  after(async () => w?.dispose());

  it('a verification that finished while the index could not be written is listed as final once it can', async () => {
    const link = await fetch(`${w.url}/api/onboarding-link`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: w.url },
      body: JSON.stringify({
        name: { givenName: 'Index', familyName: 'Retry' },
        dateOfBirth: adultDateOfBirth(),
        phone: { code: '+61', number: '0412 345 678' },
        consent: true,
      }),
    });
    assert.equal(link.status, 200, await link.clone().text());
    const { verificationId } = (await link.json()) as { verificationId: string };
    const { partners } = (await (await fetch(`${w.url}/sandbox/demo/server-keys`)).json()) as {
      partners: { serverKey: string; origin?: string }[];
    };
    const listed = async () => {
      for (const p of partners) {
        const res = await fetch(`${w.url}/v1/verifications`, { headers: { Authorization: `Bearer ${p.serverKey}` } });
        if (res.status !== 200) continue;
        const { data } = (await res.json()) as { data: { verificationId: string; status: string }[] };
        const row = data.find((r) => r.verificationId === verificationId);
        if (row) return row.status;
      }
      return undefined;
    };
    assert.equal(await listed(), 'open');

    const db = await w.mf.getD1Database('DB');
    await db.exec('ALTER TABLE verifications RENAME TO verifications_away');
    const done = await fetch(`${w.url}/sandbox/verifications/${verificationId}/complete`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'CHECKED_SUCCESS_CLEAR' }),
    });
    assert.equal(done.status, 200, await done.clone().text());
    await until(
      'the failed index write',
      async () => (w.logs.some((l) => l.includes('index_write_failed') && l.includes(verificationId)) ? true : undefined),
      () => w.output(),
    );
    // Every change the end causes (its webhook delivered to the demo's receiver included) made while the table is away.
    await until(
      'the end and its webhook settled',
      async () => {
        for (const p of partners) {
          const res = await fetch(`${w.url}/v1/verifications/${verificationId}`, { headers: { Authorization: `Bearer ${p.serverKey}` } });
          if (res.status !== 200) continue;
          const v = (await res.json()) as { status: string; webhook: { state: string } };
          return v.status === 'final' && !['queued', 'failed'].includes(v.webhook.state) ? true : undefined;
        }
        return undefined;
      },
      () => w.output(),
    );
    await db.exec('ALTER TABLE verifications_away RENAME TO verifications');

    // Nothing else happens to the verification: its own alarm writes the row again.
    await until(
      'the final row',
      async () => ((await listed()) === 'final' ? true : undefined),
      () => w.output(),
    );
  });
});
