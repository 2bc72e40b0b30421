/**
 * Two "Send again" at once, in workerd (Miniflare, the real Durable Object):
 * the verification's object hands out one renewal turn at a time, so the
 * second new link is asked for after the first is stored, and every text's
 * link stays one the worker asks about (the newest by entity, each earlier
 * one by the check id the vendor named). The fake vendor makes a check per
 * link and answers each new link after a pause, so both requests are under
 * way together. The interleavings themselves are explored on the node tier
 * (every-link-credited.test.ts, fast-check's scheduler); this runs the same
 * route through the Durable Object's RPC.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adultDateOfBirth, isoInstantAfter } from '../support/dates';
import { startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { startMiniflareWorker, verificationObject, type MiniflareWorker } from '../support/miniflare-worker';

const ORIGIN = 'https://shop.example';
const ENTITY = 'e-turn';
const phone = { code: '+61', number: '0412 345 678' };

let vendor: FakeVendor;
let worker: MiniflareWorker;
/** Each link's check at the vendor, oldest first. */
const checks: string[] = [];

before(async () => {
  vendor = await startFakeVendor(async (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.path.startsWith('/idv/v2/idvalidate/onboarding-url')) {
      const n = checks.push(`chk-${checks.length + 1}`);
      await new Promise((r) => setTimeout(r, 100)); // both new links under way together, were they allowed to be
      res.end(
        JSON.stringify({
          entity: { entityId: ENTITY },
          status: 'CREATED',
          url: `http://127.0.0.1/flow/${n}`,
          urlExpiry: isoInstantAfter(3600),
        }),
      );
    } else if (req.path.startsWith('/idv/v2/idvalidate/result')) {
      const asked = (JSON.parse(req.body) as { checkId?: string }).checkId;
      res.end(JSON.stringify({ checkId: asked ?? checks.at(-1), checkStatus: 'CHECKING', entity: { entityId: ENTITY } }));
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ errorCode: 'NOT_FOUND', errorMsg: 'no', issues: [], requestId: 'x' }));
    }
  });
  worker = await startMiniflareWorker({
    smsLimit: 10,
    vars: {
      KYC_BASE_URL: vendor.url,
      KYC_API_KEY: 'test-key',
      KYC_CUSTOMER_ID: 'test-customer',
      SESSION_SECRET: 'renewal-turn-session-secret-7272',
      ALLOWED_ORIGINS: ORIGIN,
    },
  });
});
after(async () => {
  await worker?.dispose();
  await vendor?.close();
});

const link = async (body: unknown) => {
  const res = await fetch(`${worker.url}/api/onboarding-link`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: ORIGIN },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { session: string; verificationId: string; claimCode?: string } };
};

describe('renewal turns in workerd', () => {
  it('two "Send again" at once: both texts go, and every text’s link is asked about', async () => {
    const first = await link({
      name: { givenName: 'Turn', familyName: 'Taker' },
      dateOfBirth: adultDateOfBirth(),
      phone,
      consent: true,
      sendSMS: true,
    });
    assert.equal(first.status, 200, JSON.stringify(first.json));
    const both = await Promise.all([0, 1].map(() => link({ session: first.json.session, sendSMS: true, phone })));
    for (const again of both) {
      assert.equal(again.status, 200, JSON.stringify(again.json));
      assert.equal(again.json.claimCode, first.json.claimCode, 'one code across every text');
    }
    assert.equal(checks.length, 3, 'three texts, three checks at the vendor');
    const object = await verificationObject(worker, first.json.verificationId);
    const v = (await object.execute({ type: 'read' }))!;
    assert.equal(v.renewals, 2);
    // The newest link is asked about by entity; each link it replaced by the check id the vendor named.
    assert.deepEqual([...(v.earlierChecks ?? []), checks.at(-1)].sort(), [...checks].sort());
  });
});
