/**
 * The polling budget in workerd (Miniflare, the real Durable Object and its
 * alarm) with a short link: workerd cannot take a faked clock, so time is
 * controlled through settings (a 40 s link from the fake vendor, no grace,
 * RESULT_POLL_SECONDS 5, RESULT_POLL_MAX_SECONDS 20). An abandoned
 * verification's vendor result calls are counted at the fake vendor: within
 * the budget the same schedule gives on a controlled clock, fewer than the
 * fixed schedule, with waits that double.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adultDateOfBirth, isoInstantAfter, realNow } from '../support/dates';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { startMiniflareWorker, type MiniflareWorker } from '../support/miniflare-worker';
import { fixedSchedule, simulate } from '../support/polling-sim';

const LINK_SECONDS = 40;
const POLL = 5;
const MAX = 20;
const ORIGIN = 'https://shop.example';

let vendor: FakeVendor;
let worker: MiniflareWorker;
/** When each result call reached the fake vendor (ms, this machine's clock). */
const resultCalls: number[] = [];

before(async () => {
  vendor = await startFakeVendor((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.path.startsWith('/idv/v2/idvalidate/onboarding-url')) {
      res.end(
        JSON.stringify({
          entity: { entityId: 'e-poll' },
          status: 'CREATED',
          url: 'http://127.0.0.1/flow/poll',
          urlExpiry: isoInstantAfter(LINK_SECONDS, new Date(realNow())),
        }),
      );
    } else if (req.path.startsWith('/idv/v2/idvalidate/result')) {
      resultCalls.push(Date.now());
      res.end(JSON.stringify({ checkStatus: 'CHECKING', entity: { entityId: 'e-poll' } }));
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ errorCode: 'NOT_FOUND', errorMsg: 'no', issues: [], requestId: 'x' }));
    }
  });
  worker = await startMiniflareWorker({
    vars: {
      KYC_BASE_URL: vendor.url,
      KYC_API_KEY: 'test-key',
      KYC_CUSTOMER_ID: 'test-customer',
      SESSION_SECRET: 'polling-session-secret-5151-xxxx',
      ALLOWED_ORIGINS: ORIGIN,
      RESULT_POLL_SECONDS: String(POLL),
      RESULT_POLL_MAX_SECONDS: String(MAX),
      VERIFICATION_GRACE_SECONDS: '0',
    },
  });
});
after(async () => {
  await worker?.dispose();
  await vendor?.close();
});

describe('polling budget in workerd (short link)', () => {
  it('an abandoned verification costs the backed-off schedule’s calls, with doubling waits, one at its deadline and none after', async () => {
    const started = Date.now();
    const res = await fetch(`${worker.url}/api/onboarding-link`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: ORIGIN },
      body: JSON.stringify({
        name: { givenName: 'Poll', familyName: 'Budget' },
        dateOfBirth: adultDateOfBirth(),
        phone: { code: '+61', number: '0412 345 678' },
        consent: true,
      }),
    });
    assert.equal(res.status, 200, await res.text());
    // Nobody asks /api/result: the alarm alone polls. Wait out the link and a margin for a busy machine.
    await new Promise((r) => setTimeout(r, (LINK_SECONDS + 8) * 1000));
    const seen = resultCalls.length;
    const budget = (
      await simulate({ linkSeconds: LINK_SECONDS }, { schedule: { pollMs: POLL * 1000, maxMs: MAX * 1000 }, graceSeconds: 0 })
    ).vendorCalls;
    const fixed = (await simulate({ linkSeconds: LINK_SECONDS }, { schedule: fixedSchedule(POLL), graceSeconds: 0 })).vendorCalls;
    assert.ok(seen >= 1, `the alarm polled (${seen} calls)\n${worker.logs.slice(-20).join('\n')}`);
    assert.ok(seen <= budget && budget < fixed, `${seen} calls; budget ${budget}, fixed schedule ${fixed}`);
    // The waits double from RESULT_POLL_SECONDS (alarms may be late, never early): 5, then 10, then 20 s.
    const at = resultCalls.map((t) => (t - started) / 1000);
    assert.ok(at[0]! >= POLL - 1, `first call at ${at[0]} s`);
    const scheduled = at.filter((t) => t < LINK_SECONDS - 1);
    for (let i = 1; i < scheduled.length; i++)
      assert.ok(scheduled[i]! - scheduled[i - 1]! >= Math.min(MAX, POLL * 2 ** i) - 1, `call times ${at}`);
    // At its deadline the vendor is asked once more (it answered "not finished": expired); no call came after it.
    assert.ok(at.at(-1)! >= LINK_SECONDS - 1, `asked at the deadline (${at})`);
    assert.ok(
      at.every((t) => t <= LINK_SECONDS + 1),
      `no call after the deadline (${at})`,
    );
  });
});
