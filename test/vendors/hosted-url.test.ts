/**
 * Stripe's hosted `url` is a one-time credential of the person (docs/vendors.md
 * "The hosted URL"): it is answered to the person's own browser, or fetched
 * when the person opens the link (a resume, the phone's "Continue"), and never
 * kept on the verification's record nor written to a log. The local stack's
 * app in node, the Stripe double in process; every record state and every
 * log line of each journey is searched for the double's flow URLs.
 */
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import type { MemoryVerifications } from '../support/node-twins';
import { details, PAGE, post, stripePartnerStack, WORKER, request } from '../support/stripe-partner';
import { STRIPE_SANDBOX_KEY } from '../../sandbox/stripe/app';

const SERVER_KEY = `kyc_sk_test_${'h'.repeat(43)}`;
/** The double's hosted page: every URL of it is a one-time credential. */
const FLOW = /\/sandbox\/stripe\/flow\/[A-Za-z0-9]+/;
const FLOWS = new RegExp(FLOW.source, 'g');

const stack = () => stripePartnerStack('hosted-url', SERVER_KEY);

/** Every line the worker logged during the test. */
let lines: string[] = [];
beforeEach(() => {
  lines = [];
  for (const level of ['log', 'info', 'warn', 'error'] as const) {
    mock.method(console, level, (...args: unknown[]) => void lines.push(args.map(String).join(' ')));
  }
});
afterEach(() => mock.restoreAll());

/** The flow URLs in `text`. */
const flowUrls = (text: string) => text.match(FLOWS) ?? [];

/** Fails naming where a flow URL was kept or logged. */
async function assertNeverKept(store: MemoryVerifications, id: string, seen: string[]) {
  const record = JSON.stringify(await store.execute(id, { type: 'read' }));
  assert.deepEqual(flowUrls(record), [], 'the record keeps a hosted url');
  assert.deepEqual(
    lines.flatMap((l) => flowUrls(l)),
    [],
    'a log line holds a hosted url',
  );
  // The check above looks for the shape; this one for the very URLs the person was given.
  for (const url of seen) {
    const path = new URL(url).pathname;
    assert.ok(!record.includes(path), `the record keeps ${path}`);
    assert.ok(!lines.some((l) => l.includes(path)), `a log line holds ${path}`);
  }
}

describe("Stripe's hosted url is never kept or logged", () => {
  it('a QR / copied link: the record keeps the origin only; "Continue" fetches a fresh url and forwards to it', async () => {
    const { env, store } = stack();
    const link = await post(env, '/api/onboarding-link', { ...details, handoff: true, returnUrl: `${PAGE}/done` });
    assert.equal(link.status, 200, JSON.stringify(link.json));
    const v = await store.execute(link.json.verificationId, { type: 'read' });
    assert.equal(v?.vendor, 'stripe');
    assert.equal(v?.handoff?.kind === 'link' && v.handoff.hostedUrl, WORKER, 'the hosted flow’s origin, not its url');

    const handoffUrl = String(link.json.url);
    const page = await request(env, handoffUrl);
    assert.equal(page.status, 200);
    // The page's form may be forwarded to the hosted flow's origin (kept), and nowhere else.
    assert.match(page.headers.get('Content-Security-Policy') ?? '', new RegExp(`form-action 'self' ${WORKER}`));
    const go = await request(env, handoffUrl, { method: 'POST' });
    assert.equal(go.status, 303);
    const hosted = go.headers.get('Location') ?? '';
    assert.match(hosted, FLOW);
    assert.equal((await request(env, hosted)).status, 200, 'the fresh url opens the hosted page');
    // Used once: the handoff link no longer forwards.
    assert.equal((await request(env, handoffUrl, { method: 'POST' })).status, 410);
    await assertNeverKept(store, link.json.verificationId, [hosted]);
  });

  it("this device, started by the partner's server: the answer carries a url, a resume a fresh one; the record neither", async () => {
    const { env, store } = stack();
    const created = await post(
      env,
      '/v1/verifications',
      { customerRef: 'cust-42', returnUrl: `${PAGE}/done` },
      { Authorization: `Bearer ${SERVER_KEY}`, 'Idempotency-Key': 'hosted-url-test-1' },
    );
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const clientSecret = String(created.json.clientSecret);
    const first = await post(env, '/api/onboarding-link', { ...details, clientSecret });
    assert.equal(first.status, 200, JSON.stringify(first.json));
    assert.match(first.json.url, FLOW);
    const v = await store.execute(first.json.verificationId, { type: 'read' });
    assert.equal(v?.link?.url, WORKER, 'the hosted flow’s origin, not its url');

    // The person leaves the page and comes back: the same session, asked again for its url.
    const resumed = await post(env, '/api/onboarding-link', { clientSecret });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.json));
    assert.match(resumed.json.url, FLOW);
    assert.equal(resumed.json.session !== undefined, true);
    assert.equal((await request(env, resumed.json.url)).status, 200, 'the resumed url opens the hosted page');
    const after = await store.execute(first.json.verificationId, { type: 'read' });
    assert.equal(after?.entityId, v?.entityId, 'the same session: no second link was made');
    await assertNeverKept(store, first.json.verificationId, [first.json.url, resumed.json.url]);
  });

  it('this device, started on the page: "Continue the check" (the session) gets the url of the same session, asked of Stripe again', async () => {
    const { env, store } = stack();
    const first = await post(env, '/api/onboarding-link', { ...details, returnUrl: `${PAGE}/done` });
    assert.equal(first.status, 200, JSON.stringify(first.json));
    assert.match(first.json.url, FLOW);
    const v = await store.execute(first.json.verificationId, { type: 'read' });
    // Back from the hosted page, then "Continue the check": the widget asks with its session, as a renewal does.
    const again = await post(env, '/api/onboarding-link', { session: first.json.session, returnUrl: `${PAGE}/done` });
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.match(again.json.url, FLOW);
    assert.equal((await request(env, again.json.url)).status, 200, 'it opens the hosted page');
    const after = await store.execute(first.json.verificationId, { type: 'read' });
    assert.equal(after?.entityId, v?.entityId, 'the same session at Stripe: no second link was made');
    assert.equal(after?.renewals ?? 0, v?.renewals ?? 0, 'no renewal spent');
    await assertNeverKept(store, first.json.verificationId, [first.json.url, again.json.url]);
  });

  it('a session the person finished offers no url: a resume gets a new link rather than a dead one', async () => {
    const { env, store } = stack();
    const created = await post(
      env,
      '/v1/verifications',
      { customerRef: 'cust-43', returnUrl: `${PAGE}/done` },
      { Authorization: `Bearer ${SERVER_KEY}`, 'Idempotency-Key': 'hosted-url-test-2' },
    );
    const clientSecret = String(created.json.clientSecret);
    const first = await post(env, '/api/onboarding-link', { ...details, clientSecret });
    assert.equal(first.status, 200, JSON.stringify(first.json));
    // Cancelled at Stripe behind our back (the dashboard): the session offers no url any more.
    const v = await store.execute(first.json.verificationId, { type: 'read' });
    const { sandbox } = await import('../../sandbox/app');
    const canceled = await sandbox.fetch(
      new Request(`${WORKER}/sandbox/stripe/v1/identity/verification_sessions/${v!.entityId}/cancel`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${STRIPE_SANDBOX_KEY}` },
      }),
      {},
    );
    assert.equal(canceled.status, 200);
    const resumed = await post(env, '/api/onboarding-link', { clientSecret });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.json));
    assert.match(resumed.json.url, FLOW);
    const after = await store.execute(first.json.verificationId, { type: 'read' });
    assert.notEqual(after?.entityId, v?.entityId, 'a new session');
    await assertNeverKept(store, first.json.verificationId, [first.json.url, resumed.json.url]);
  });
});
