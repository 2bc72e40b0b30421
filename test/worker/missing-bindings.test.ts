/**
 * The worker keeps no in-memory stand-in for its Durable Object stores: a
 * store without its binding (and without a twin a node test plugged in)
 * answers 500 MISCONFIGURED naming the binding, never a silent map in memory.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { portsFor } from '../../worker/ports-for';
import { createApp } from '../../worker/app';
import { enforce } from '../../worker/lib/limits';
import { nodeEnv } from '../support/node-env';
import { twinsFor, useNodeTwins } from '../support/node-twins';
import { newSigningJwk } from '../support/signing-keys';
import type { Env } from '../../worker/lib/env';

const misconfigured = (binding: string) => ({
  status: 500,
  errorCode: 'MISCONFIGURED',
  issues: [{ issue: 'is not bound', issueLocation: binding }],
});

describe('stores without their binding', () => {
  it('refuse with MISCONFIGURED naming VERIFICATIONS, LIMITS or IDEMPOTENCY', () => {
    const ports = portsFor(nodeEnv());
    assert.throws(() => ports.verifications.execute('vrf_nothing', { type: 'read' }), misconfigured('VERIFICATIONS'));
    assert.throws(() => ports.allowances.take('budget', 'a', Date.now() + 60_000, 1), misconfigured('LIMITS'));
    assert.throws(() => ports.idempotency('acme https://partner.example key-12345'), misconfigured('IDEMPOTENCY'));
  });

  it('use the twins a node test plugged in, for that env only', async () => {
    const env = useNodeTwins(nodeEnv());
    const ports = portsFor(env, twinsFor);
    assert.equal(await ports.verifications.execute('vrf_nothing', { type: 'read' }), undefined);
    assert.equal(await ports.allowances.take('budget', 'a', Date.now() + 60_000, 1), true);
    assert.equal(await ports.allowances.take('budget', 'b', Date.now() + 60_000, 1), false);
    assert.deepEqual(await ports.idempotency('acme k-1').claim('acme k-1', 'print'), { kind: 'new' });
    assert.throws(() => portsFor(nodeEnv()).verifications.execute('vrf_nothing', { type: 'read' }), misconfigured('VERIFICATIONS'));
  });
});

describe('rate limits without their binding', () => {
  it('answer 500 MISCONFIGURED naming RL_IP on a production-shaped env, never a silent pass', async () => {
    // The product as production composes it, with every setting a real vendor needs: only RL_IP is missing.
    const env = useNodeTwins(
      nodeEnv({
        KYC_BASE_URL: 'https://vendor.test',
        KYC_API_KEY: 'test-api-key',
        KYC_CUSTOMER_ID: 'cust-1',
        SESSION_SECRET: 'test-session-secret-0123456789',
        PUBLIC_ORIGIN: 'https://kyc.example.com',
        RESULT_SIGNING_KEYS: JSON.stringify([await newSigningJwk('k-1')]),
        ALLOWED_ORIGINS: 'https://partner.example',
        RL_IP: undefined,
      }),
    );
    const res = await createApp({ ports: twinsFor }).request(
      'https://kyc.example.com/api/onboarding-link',
      { method: 'POST', headers: { Origin: 'https://partner.example', 'Content-Type': 'application/json' }, body: '{}' },
      env,
    );
    assert.equal(res.status, 500);
    const body = (await res.json()) as { errorCode: string; issues: unknown[] };
    assert.equal(body.errorCode, 'MISCONFIGURED');
    assert.deepEqual(body.issues, [{ issue: 'is not bound', issueLocation: 'RL_IP' }]);
  });

  it('name RL_SMS, RL_IP_48, RL_SERVER_KEY and RL_SEARCH the same way', async () => {
    for (const name of ['RL_SMS', 'RL_IP_48', 'RL_SERVER_KEY', 'RL_SEARCH'] as const) {
      await assert.rejects(enforce(nodeEnv({ [name]: undefined }), name, 'k', 'requests'), misconfigured(name));
    }
  });
});

describe('the index (D1) without its binding', () => {
  it('is 500 MISCONFIGURED naming DB on ruok, the link route and /v1, wherever verifications are Durable Objects', async () => {
    // VERIFICATIONS bound (as in every deployment), DB not: the verifications served would never be listed.
    const env = useNodeTwins(
      nodeEnv({
        KYC_BASE_URL: 'https://vendor.test',
        KYC_API_KEY: 'test-api-key',
        KYC_CUSTOMER_ID: 'cust-1',
        SESSION_SECRET: 'test-session-secret-0123456789-abcdef',
        PUBLIC_ORIGIN: 'https://kyc.example.com',
        RESULT_SIGNING_KEYS: JSON.stringify([await newSigningJwk('k-1')]),
        ALLOWED_ORIGINS: 'https://partner.example',
        VERIFICATIONS: Object.create(null) as Env['VERIFICATIONS'], // bound: only its presence is asked
        DB: undefined,
      }),
    );
    const app = createApp({ ports: twinsFor });
    for (const [path, init] of [
      ['/api/ruok', {}],
      [
        '/api/onboarding-link',
        { method: 'POST', headers: { Origin: 'https://partner.example', 'Content-Type': 'application/json' }, body: '{}' },
      ],
      ['/v1/verifications', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"customerRef":"a"}' }],
    ] as const) {
      const res = await app.request(`https://kyc.example.com${path}`, init, env);
      const body = (await res.json()) as { errorCode: string; issues: { issueLocation: string; issue: string }[] };
      assert.equal(res.status, 500, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.errorCode, 'MISCONFIGURED');
      assert.ok(
        body.issues.some((i) => i.issueLocation === 'DB' && /not bound/.test(i.issue)),
        `${path}: ${JSON.stringify(body.issues)}`,
      );
    }
  });
});
