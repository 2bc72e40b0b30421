/**
 * "Done when" of the sandbox issue, in workerd: the real worker (`wrangler dev`,
 * no .dev.vars, no KYC_* configuration) uses the built-in sandbox on its
 * Durable Object: /api/ruok is OK, the link leads to the hosted-flow page, and
 * the result turns final after "Complete verification".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startWorker, type RunningWorker } from '../support/wrangler';
import { adultDateOfBirth, realNow } from '../support/dates';
import { outboxRef } from '../../sandbox/outbox';

let worker: RunningWorker;
before(async () => {
  worker = await startWorker({});
});
after(async () => {
  await worker?.stop();
});

const post = (path: string, body: unknown) =>
  fetch(worker.url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: worker.url },
    body: JSON.stringify(body),
  });

const person = {
  name: { givenName: 'Ana', familyName: 'Lima' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};

describe('the worker with the sandbox as its default vendor (workerd)', () => {
  it('ruok → link → hosted flow → final result', async () => {
    const ruok = await fetch(`${worker.url}/api/ruok`);
    assert.equal(ruok.status, 200);
    assert.deepEqual(await ruok.json(), { status: 'OK' });

    const res = await post('/api/onboarding-link', { ...person, returnUrl: `${worker.url}/` });
    assert.equal(res.status, 200);
    const link = (await res.json()) as { url: string; session: string; status: string; verificationId: string };
    assert.ok(link.url.startsWith(`${worker.url}/sandbox/flow/`), link.url);

    const page = await fetch(link.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Ana Lima/);

    const pending = await post('/api/result', { session: link.session });
    // `status` and `vendor` joined the answer with the second vendor (docs/vendors.md).
    assert.deepEqual(await pending.json(), { checkStatus: 'CHECKING', status: 'open', vendor: 'idv', verificationId: link.verificationId });

    const press = await fetch(link.url, { method: 'POST', body: new URLSearchParams({ outcome: 'complete' }), redirect: 'manual' });
    assert.equal(press.status, 303);
    const back = new URL(press.headers.get('location')!);
    assert.equal(back.origin, worker.url);
    const checkId = back.searchParams.get('checkId')!;
    assert.ok(checkId);

    const final = await post('/api/result', { session: link.session, checkId });
    assert.equal(final.status, 200);
    const answer = (await final.json()) as { checkStatus: string; verificationId: string; resultToken: string };
    assert.equal(answer.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.equal(answer.verificationId, link.verificationId);
    // Signed by the sandbox's development key, made on first use (kid `sandbox-…`).
    const jwks = createRemoteJWKSet(new URL(`${worker.url}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(answer.resultToken, jwks, {
      issuer: worker.url,
      audience: worker.url,
      currentDate: new Date(realNow()),
    });
    assert.match(protectedHeader.kid!, /^sandbox-[0-9a-f]{12}$/);
    assert.equal(payload.sub, link.verificationId);
  });

  it('texts nobody: an SMS link lands in the outbox for the holder of its key only, masked', async () => {
    const key = `visitor-key-${Date.now()}`;
    const ref = await outboxRef(key);
    const res = await post('/api/onboarding-link', { ...person, sendSMS: true, customerRef: ref });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { smsSent: boolean }).smsSent, true);
    const outbox = (await (await fetch(`${worker.url}/sandbox/outbox?key=${key}`)).json()) as { messages: { to: string }[] };
    assert.equal(outbox.messages.length, 1);
    assert.match(outbox.messages[0]!.to, /^\+61 \*+678$/);
    const others = (await (await fetch(`${worker.url}/sandbox/outbox?key=${key}-x`)).json()) as { messages: unknown[] };
    assert.deepEqual(others.messages, []);
    // Knowing the reference (it is in the webhook, the vendor's data, the demo's screen) reads nothing.
    assert.equal((await fetch(`${worker.url}/sandbox/outbox?customerRef=${ref}`)).status, 400);
  });
});
