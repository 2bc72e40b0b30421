/**
 * `npm run sandbox -- complete` for both vendors (scripts/sandbox.ts,
 * worker/entry/local-sandbox-outcomes.ts): the outcome is asked for in our
 * words and the verification's own vendor's double says it in its own (the
 * idv sandbox a check status, the Stripe double a Verify / Fail with a code /
 * Abandon on the session); the verification then ends through its ordinary
 * path. The local stack's app in node, the doubles in process; the command
 * line's parsing on its own. (In workerd with the real webhook:
 * test/worker/sandbox-outcomes-workerd.test.ts.)
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Env } from '../../worker/lib/env';
import { sandboxCommand, UsageError } from '../../scripts/sandbox';
import { nodeApp } from '../support/node-app';
import { nodeEnv } from '../support/node-env';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { adultDateOfBirth } from '../support/dates';

const WORKER = 'http://127.0.0.1:8787';
const PAGE = 'https://partner.example';
const ID = 'vrf_01ARZ3NDEKTSV4RRFFQ69G5FAV';

function stack(vendor: 'idv' | 'stripe') {
  const env = nodeEnv({
    KYC_VENDOR: vendor,
    ALLOWED_ORIGINS: PAGE,
    SESSION_SECRET: 'sandbox-complete-test-session-secret-0',
    LIMIT_OPEN_PER_IP: '1000000',
  });
  const store = new MemoryVerifications(env, { now: () => Date.now() });
  useNodeTwins(env, { verifications: store });
  return { env, store };
}

async function post(env: Env, path: string, json: unknown, headers: Record<string, string> = {}) {
  const res = await nodeApp.request(
    `${WORKER}${path}`,
    { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(json) },
    env,
  );
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** An open verification with its first link, on this device. */
async function open(env: Env): Promise<string> {
  const link = await post(
    env,
    '/api/onboarding-link',
    {
      name: { givenName: 'Ona', familyName: 'Lee' },
      dateOfBirth: adultDateOfBirth(),
      phone: { code: '+61', number: '0412 345 678' },
      consent: true,
      returnUrl: `${PAGE}/done`,
    },
    { Origin: PAGE },
  );
  assert.equal(link.status, 200, JSON.stringify(link.json));
  return String(link.json.verificationId);
}

/** What the command sends, sent from this machine. */
async function complete(env: Env, id: string, ...args: string[]) {
  const cmd = sandboxCommand(['complete', id, ...args], {});
  return post(env, cmd.path, cmd.body, { 'CF-Connecting-IP': '127.0.0.1' });
}

describe('npm run sandbox -- complete, for both vendors', () => {
  for (const vendor of ['idv', 'stripe'] as const) {
    it(`${vendor}: --outcome verified ends it verified, in our words`, async () => {
      const { env, store } = stack(vendor);
      const id = await open(env);
      const done = await complete(env, id, '--outcome', 'verified');
      assert.equal(done.status, 200, JSON.stringify(done.json));
      assert.equal(done.json.status, 'final');
      assert.equal(done.json.vendor, vendor);
      assert.equal(done.json.result.outcome, 'verified');
      assert.equal((await store.execute(id, { type: 'read' }))?.state.name, 'final');
    });

    it(`${vendor}: --outcome requires_input (and requires-input) waits for the next attempt`, async () => {
      const { env } = stack(vendor);
      const id = await open(env);
      const cmd = sandboxCommand(['requires-input', id], {});
      assert.deepEqual(cmd.body, { outcome: 'requires_input' });
      const waiting = await post(env, cmd.path, cmd.body, { 'CF-Connecting-IP': '127.0.0.1' });
      assert.equal(waiting.status, 200, JSON.stringify(waiting.json));
      assert.equal(waiting.json.status, 'requires_input');
    });

    it(`${vendor}: --outcome failed ends it failed`, async () => {
      const { env } = stack(vendor);
      const id = await open(env);
      const done = await complete(env, id, '--outcome', 'failed');
      assert.equal(done.status, 200, JSON.stringify(done.json));
      assert.equal(done.json.result.outcome, 'failed');
    });
  }

  it('stripe: --code chooses the last_error.code, mapped by the adapter (a final one, a retryable one)', async () => {
    const { env } = stack('stripe');
    const young = await complete(env, await open(env), '--outcome', 'failed', '--code', 'under_supported_age');
    assert.deepEqual(young.json.result, { outcome: 'failed', reason: 'under_age', vendor: 'stripe', vendorStatus: 'under_supported_age' });
    const expired = await complete(env, await open(env), '--outcome', 'requires_input', '--code', 'document_expired');
    assert.equal(expired.json.status, 'requires_input', JSON.stringify(expired.json));
  });

  it('stripe: --outcome abandoned leaves it open (the same session can still be completed)', async () => {
    const { env } = stack('stripe');
    const id = await open(env);
    const left = await complete(env, id, '--outcome', 'abandoned');
    assert.equal(left.status, 200, JSON.stringify(left.json));
    assert.equal(left.json.status, 'open');
    const done = await complete(env, id, '--outcome', 'verified');
    assert.equal(done.json.result.outcome, 'verified');
  });

  it("refuses what the vendor's double does not have, naming the field", async () => {
    const idv = stack('idv');
    const a = await complete(idv.env, await open(idv.env), '--outcome', 'abandoned');
    assert.equal(a.status, 400);
    assert.equal(a.json.issues[0].issueLocation, 'outcome');
    const b = await complete(idv.env, await open(idv.env), '--outcome', 'failed', '--code', 'consent_declined');
    assert.equal(b.json.issues[0].issueLocation, 'code');
    const stripe = stack('stripe');
    const c = await complete(stripe.env, await open(stripe.env), '--outcome', 'inconclusive');
    assert.equal(c.status, 400);
    assert.equal(c.json.issues[0].issueLocation, 'outcome');
    const d = await complete(stripe.env, await open(stripe.env), '--outcome', 'failed', '--code', 'NO_SUCH_CODE');
    assert.equal(d.json.issues[0].issueLocation, 'code');
    const e = await complete(stripe.env, await open(stripe.env), '--status', 'CHECKED_FAILED');
    assert.equal(e.json.issues[0].issueLocation, 'status');
    const none = await post(
      stripe.env,
      `/sandbox/verifications/${await open(stripe.env)}/complete`,
      {},
      { 'CF-Connecting-IP': '127.0.0.1' },
    );
    assert.equal(none.status, 400);
    assert.equal(none.json.issues[0].issueLocation, 'outcome');
  });

  it('the command line takes our words (and the deprecated idv --status), and checks them before calling anything', () => {
    assert.deepEqual(sandboxCommand(['complete', ID, '--outcome', 'Requires-Input'], {}).body, { outcome: 'requires_input' });
    assert.deepEqual(sandboxCommand(['complete', ID, '--outcome', 'failed', '--code', 'selfie_manipulated'], {}).body, {
      outcome: 'failed',
      code: 'selfie_manipulated',
    });
    assert.deepEqual(sandboxCommand(['complete', ID, '--status', 'checked_failed'], {}).body, { status: 'CHECKED_FAILED' });
    assert.throws(() => sandboxCommand(['complete', ID], {}), UsageError);
    assert.throws(() => sandboxCommand(['complete', ID, '--outcome', 'passed'], {}), UsageError);
    assert.throws(() => sandboxCommand(['complete', ID, '--outcome', 'verified', '--status', 'CHECKED_FAILED'], {}), UsageError);
    assert.throws(() => sandboxCommand(['requires-input', ID, '--outcome', 'verified'], {}), UsageError);
  });
});
