/**
 * `/v1` cancel and redact at Stripe meet the person's next attempt
 * (worker/verifications/at-vendor.ts): whatever the order in which Stripe's
 * answers come, no session the verification made at Stripe is left behind.
 * After a cancel every session is ended at Stripe (canceled, or verified
 * before it); after a redaction every session is erased at Stripe or its id
 * is kept for the next redact (`vendorRedactPending`), and no other id is
 * kept. fast-check's scheduler orders each call to the Stripe double, so a
 * next attempt's new session can be made while the cancel or redact is
 * asking Stripe about the sessions before it, and the other way round (the
 * race this closes: a session made then was never asked about, and a
 * redaction wiped its id).
 */
import { afterEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sandbox } from '../../sandbox/app';
import { STRIPE_SANDBOX_KEY } from '../../sandbox/stripe/app';
import { nodeApp } from '../support/node-app';
import { nodeEnv } from '../support/node-env';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { adultDateOfBirth } from '../support/dates';
import type { Env } from '../../worker/lib/env';

const WORKER = 'http://127.0.0.1:8787';
const PAGE = 'https://partner.example';
const SERVER_KEY = `kyc_sk_test_${'r'.repeat(43)}`;
const asServer = { Authorization: `Bearer ${SERVER_KEY}` };
const SESSIONS = '/sandbox/stripe/v1/identity/verification_sessions';

const details = {
  name: { givenName: 'Ann', familyName: 'Lee' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};

function stack() {
  const env = nodeEnv({
    KYC_VENDOR: 'stripe',
    ALLOWED_ORIGINS: PAGE,
    SESSION_SECRET: 'at-vendor-races-session-secret-01234',
    PARTNER_SERVER_KEYS: SERVER_KEY,
    LIMIT_OPEN_PER_IP: '1000000',
  });
  const store = new MemoryVerifications(env, { now: () => Date.now() });
  useNodeTwins(env, { verifications: store });
  return { env, store };
}

async function post(env: Env, path: string, json: unknown, headers: Record<string, string> = { Origin: PAGE }) {
  const res = await nodeApp.request(
    `${WORKER}${path}`,
    { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(json) },
    env,
  );
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** The session as Stripe (the double) has it. */
async function atStripe(real: typeof sandbox.fetch, id: string) {
  const res = await real(new Request(`${WORKER}${SESSIONS}/${id}`, { headers: { Authorization: `Bearer ${STRIPE_SANDBOX_KEY}` } }), {});
  assert.equal(res.status, 200);
  return (await res.json()) as { status: string; redaction: { status: string } | null };
}

/** A Stripe verification whose first attempt failed (requires_input): its id, the page's session, the first session at Stripe. */
async function waitingForNextAttempt(env: Env, store: MemoryVerifications) {
  const link = await post(env, '/api/onboarding-link', { ...details, returnUrl: `${PAGE}/done` });
  assert.equal(link.status, 200, JSON.stringify(link.json));
  const id = String(link.json.verificationId);
  const first = (await store.execute(id, { type: 'read' }))!.entityId!;
  await sandbox.fetch(
    new Request(String(link.json.url), {
      method: 'POST',
      body: 'choice=fail&code=document_expired',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    }),
    {},
  );
  const waiting = await post(env, '/api/result', { session: link.json.session, returned: 'error' });
  assert.equal(waiting.json.status, 'requires_input', JSON.stringify(waiting.json));
  return { id, page: String(link.json.session), first };
}

afterEach(() => mock.restoreAll());

describe('cancel and redact at Stripe meet a next attempt, in any order', () => {
  for (const op of ['cancel', 'redact'] as const) {
    it(`${op}: no session made at Stripe is left behind`, { timeout: 120_000 }, async () => {
      const outcomes = new Set<string>();
      await fc.assert(
        fc.asyncProperty(fc.scheduler(), fc.constantFrom('end first', 'attempt first'), async (s, order) => {
          mock.restoreAll();
          for (const level of ['log', 'info', 'warn'] as const) mock.method(console, level, () => undefined);
          const { env, store } = stack();
          const { id, page, first } = await waitingForNextAttempt(env, store);
          const real: typeof sandbox.fetch = sandbox.fetch.bind(sandbox);
          const made = new Set([first]);
          let calledStripe!: () => void;
          const firstCall = new Promise<void>((resolve) => (calledStripe = resolve));
          // Every call to Stripe answers when the scheduler lets it; each session made is noted.
          mock.method(sandbox, 'fetch', (request: Request, ...rest: unknown[]) => {
            const path = new URL(request.url).pathname;
            calledStripe();
            return s.schedule(Promise.resolve(), `${request.method} ${path.slice(SESSIONS.length) || '/'}`).then(async () => {
              const res = await (real as (...a: unknown[]) => Promise<Response>)(request, ...rest);
              if (request.method === 'POST' && path === SESSIONS && res.ok) made.add(((await res.clone().json()) as { id: string }).id);
              return res;
            });
          });
          const end = () => post(env, `/v1/verifications/${id}/${op}`, {}, asServer);
          const attempt = () => post(env, '/api/onboarding-link', { ...details, session: page, returnUrl: `${PAGE}/done` });
          // The second request comes while the first is asking Stripe (its call not answered yet).
          const [firstOne, second] = order === 'end first' ? [end, attempt] : [attempt, end];
          const a = firstOne();
          const b = firstCall.then(second);
          const [x, y] = await s.waitFor(Promise.all([a, b]));
          const [done, next] = order === 'end first' ? [x, y] : [y, x];
          mock.restoreAll();
          for (const level of ['log', 'info', 'warn'] as const) mock.method(console, level, () => undefined);
          outcomes.add(`${next.status}`);

          assert.equal(done.status, 200, `${op}: ${JSON.stringify(done.json)}`);
          // The next attempt either came first (a link) or found the verification ended.
          assert.ok(next.status === 200 || next.status === 409, `next attempt: ${next.status} ${JSON.stringify(next.json)}`);
          const v = (await store.execute(id, { type: 'read' }))!;
          for (const session of made) {
            const at = await atStripe(real, session);
            if (op === 'cancel') {
              assert.ok(at.status === 'canceled' || at.status === 'verified', `${session} is ${at.status} at Stripe after the cancel`);
            } else {
              const kept = v.vendorRedactPending ?? [];
              assert.ok(at.redaction?.status === 'redacted' || kept.includes(session), `${session} neither erased at Stripe nor kept`);
            }
          }
          if (op === 'redact') {
            const record = JSON.stringify(v);
            for (const session of made) {
              if (!(v.vendorRedactPending ?? []).includes(session))
                assert.ok(!record.includes(session), `the redacted record keeps ${session}`);
            }
          }
        }),
        { numRuns: 30 },
      );
      // Both orders were met: the next attempt made its link first, and it came after the end.
      assert.deepEqual([...outcomes].sort(), ['200', '409']);
    });
  }
});
