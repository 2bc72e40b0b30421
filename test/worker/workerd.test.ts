/**
 * Runtime tier: the real worker in workerd (`wrangler dev`) in front of a
 * fake vendor on 127.0.0.1: the three routes' happy paths and the timeout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { happyVendor, startFakeVendor, type FakeVendor } from '../support/fake-vendor';
import { startWorker, type RunningWorker } from '../support/wrangler';
import { adultDateOfBirth, realNow } from '../support/dates';
import { until } from '../support/wait';

let vendor: FakeVendor;
let worker: RunningWorker;

before(async () => {
  vendor = await startFakeVendor();
  worker = await startWorker({
    vars: {
      KYC_BASE_URL: vendor.url,
      KYC_API_KEY: 'workerd-test-key',
      KYC_CUSTOMER_ID: 'cust-w',
      SESSION_SECRET: 'workerd-test-secret-123456-xxxxx',
      KYC_TIMEOUT_MS: '800',
    },
  });
});
after(async () => {
  await worker?.stop();
  await vendor?.close();
});

const person = {
  name: { givenName: 'Ana', familyName: 'Lima' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};

function post(path: string, body: unknown): Promise<Response> {
  return fetch(worker.url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: worker.url },
    body: JSON.stringify(body),
  });
}

describe('the worker in workerd', () => {
  it('proxies all three routes to the vendor with our credentials', async () => {
    vendor.behave(happyVendor);
    vendor.requests.length = 0;
    const ruok = await fetch(`${worker.url}/api/ruok`);
    assert.equal(ruok.status, 200);
    assert.deepEqual(await ruok.json(), { status: 'OK' });

    const link = await post('/api/onboarding-link', person);
    assert.equal(link.status, 200);
    const answer = (await link.json()) as Record<string, unknown>;
    // `returnKeys`: what idv's hosted flow appends to the return URL (the return's opaque hint, issue 41).
    assert.deepEqual(Object.keys(answer).sort(), ['returnKeys', 'session', 'smsSent', 'status', 'url', 'urlExpiry', 'verificationId']);

    const res = await post('/api/result', { session: answer.session });
    assert.equal(res.status, 200);
    const result = (await res.json()) as { checkStatus: string; verificationId: string; resultToken: string };
    assert.equal(result.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.equal(result.verificationId, answer.verificationId);
    // The token verifies against the worker's own JWKS (WebCrypto signing in workerd).
    const jwks = createRemoteJWKSet(new URL(`${worker.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(result.resultToken, jwks, {
      issuer: worker.url,
      audience: worker.url,
      algorithms: ['ES256'],
      currentDate: new Date(realNow()),
    });
    assert.equal(payload.sub, answer.verificationId);
    assert.equal(payload.check_status, 'CHECKED_SUCCESS_CLEAR');

    assert.deepEqual(
      vendor.requests.map((r) => `${r.method} ${r.path}`),
      ['GET /v2/kyc/ruok', 'POST /idv/v2/idvalidate/onboarding-url', 'POST /idv/v2/idvalidate/result'],
    );
    for (const r of vendor.requests) {
      assert.equal(r.headers['api_key'], 'workerd-test-key');
      assert.equal(r.headers['x-service-customerid'], 'cust-w');
      assert.equal(r.headers['x-service-channel'], 'api');
    }
    assert.deepEqual(JSON.parse(vendor.requests[2]!.body), { entity: { entityId: 'e-1' } });
  });

  it('refuses a vendor answer about another entity with 502 VENDOR_MISMATCH, credits nothing, logs the verification id', async () => {
    vendor.behave(happyVendor);
    const link = (await (await post('/api/onboarding-link', person)).json()) as { session: string; verificationId: string };
    vendor.behave((req, res) => {
      if (!req.path.startsWith('/idv/v2/idvalidate/result')) return happyVendor(req, res);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ checkStatus: 'CHECKED_SUCCESS_CLEAR', entity: { entityId: 'someone-else' } }));
    });
    const res = await post('/api/result', { session: link.session, checkId: 'chk-of-another-person' });
    assert.equal(res.status, 502);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.errorCode, 'VENDOR_MISMATCH');
    assert.ok(!('resultToken' in body));
    const logged = new RegExp(`"event":"vendor_mismatch","verificationId":"${link.verificationId}"`);
    // Logs arrive through wrangler: up to 15 s on a busy machine.
    await until(() => logged.test(worker.output()), { what: 'the vendor_mismatch log line', detail: () => worker.output().slice(-2000) });
    assert.match(worker.output(), logged);
    // The vendor fixed: the same verification is still open, and now answers from the right entity.
    vendor.behave(happyVendor);
    const again = (await (await post('/api/result', { session: link.session, checkId: 'chk-2' })).json()) as { checkStatus: string };
    assert.equal(again.checkStatus, 'CHECKED_SUCCESS_CLEAR');
  });

  it('answers 504 when the vendor does not answer within KYC_TIMEOUT_MS', async () => {
    vendor.behave(() => {
      /* never answers */
    });
    const started = Date.now();
    const res = await post('/api/onboarding-link', person);
    const took = Date.now() - started;
    assert.equal(res.status, 504);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.errorCode, 'VENDOR_TIMEOUT');
    assert.ok(took < 800 + 1500, `answered in ${took} ms`);
  });
});
