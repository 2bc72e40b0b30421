/**
 * The worker's input properties, checked with fast-check on the real Hono app
 * (`app.request`, msw as the vendor; `test/worker/harness.ts`):
 *
 *   - never a 5xx, whatever the input;
 *   - a refusal is an ErrorObject whose every issue names a field of the request;
 *   - a refusal never reaches the vendor, an acceptance reaches it exactly once;
 *   - no submitted text comes back in an answer or a log line.
 *
 * `test/worker/properties.test.ts` runs them with a fixed seed in `npm test`;
 * `npm run fuzz -- --runs N [--seed S]` runs them long. A failure prints the
 * shrunk counterexample and the seed and path to replay it.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { answerBodies, call, logLines, okVendor, vendor, vendorRequests } from '../worker/harness';
import { onboardingBody, pageRequest, resultBody } from './arbitraries';
import { assertNoLeak, telltales } from '../support/echo';

/** Every place an issue may point at: the request's fields, the body, the key header. */
const FIELDS = new Set([
  '<body>',
  'name',
  'name.givenName',
  'name.middleName',
  'name.familyName',
  'dateOfBirth',
  'phone',
  'phone.code',
  'phone.number',
  'consent',
  'sendSMS',
  'handoff',
  'customerRef',
  'returnUrl',
  'turnstileToken',
  'lang',
  'entityId',
  'session',
  'checkId',
  'token',
  'extra',
]);

function assertNoEcho(body: unknown, since: { answers: number; logs: number }): void {
  const told = [...answerBodies.slice(since.answers), ...logLines.slice(since.logs)].join('\n');
  assertNoLeak(told, telltales(body), 'the answer or a log line');
}

function assertErrorObject(json: any): void {
  assert.equal(typeof json?.errorCode, 'string', 'an ErrorObject with an errorCode');
  assert.equal(typeof json.errorMsg, 'string', 'an ErrorObject with an errorMsg');
  assert.ok(Array.isArray(json.issues), 'an ErrorObject with issues');
}

/**
 * A field of the request; an unknown key whose name is not safe to repeat is
 * named `<unknown>` under its parent (worker/lib/errors.ts), which must be a field.
 */
function namesAField(location: unknown, body: unknown): boolean {
  if (typeof location !== 'string') return false;
  const known = location.replace(/(^|\.)<unknown>$/, '');
  if (known === '' || FIELDS.has(known)) return true;
  // An unknown key the body really has (its name is safe to repeat).
  let at: unknown = body;
  for (const key of known.split('.')) {
    if (!at || typeof at !== 'object' || !Object.hasOwn(at, key)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return true;
}

const mark = () => ({ answers: answerBodies.length, logs: logLines.length });

export const properties: Record<PropertyName, fc.IAsyncPropertyWithHooks<[any]>> = {
  /** POST /api/onboarding-link with any body. */
  onboardingLink: fc.asyncProperty(onboardingBody, async (body) => {
    vendor(...okVendor);
    const since = mark();
    const res = await call('/api/onboarding-link', { method: 'POST', json: body });
    // 401: a new link asked with a session that is not valid (the fuzzer cannot forge one).
    assert.ok(res.status === 200 || res.status === 400 || res.status === 401, `status ${res.status} (${res.text.slice(0, 200)})`);
    const linkCalls = vendorRequests.filter((r) => r.url.endsWith('/onboarding-url'));
    if (res.status !== 200) {
      assertErrorObject(res.json);
      assert.ok(res.json.issues.length > 0, 'a refusal names at least one field');
      for (const i of res.json.issues)
        assert.ok(namesAField(i.issueLocation, body), `issueLocation ${JSON.stringify(i.issueLocation)} is a field of the request`);
      assert.equal(vendorRequests.length, 0, 'refused input never reaches the vendor');
    } else {
      assert.equal(linkCalls.length, 1, 'an accepted request asks the vendor once');
      // A texted link gives the starting device a code, never a URL; every other link a URL.
      if (res.json.smsSent) assert.match(res.json.claimCode, /^\d{6}$/);
      else assert.equal(typeof res.json.url, 'string');
    }
    assertNoEcho(body, since);
  }),

  /** POST /api/result with any body and no valid session. */
  result: fc.asyncProperty(resultBody, async (body) => {
    vendor(...okVendor);
    const since = mark();
    const res = await call('/api/result', { method: 'POST', json: body });
    assert.ok(res.status === 400 || res.status === 401, `status ${res.status} (${res.text.slice(0, 200)})`);
    assertErrorObject(res.json);
    for (const i of res.json.issues)
      assert.ok(namesAField(i.issueLocation, body), `issueLocation ${JSON.stringify(i.issueLocation)} is a field of the request`);
    assert.equal(vendorRequests.length, 0, 'no vendor call without a valid session');
    assertNoEcho(body, since);
  }),

  /** GET of the worker's pages (handoff links and returns, JWKS, unknown paths) with any path and query. */
  pages: fc.asyncProperty(pageRequest, async (path) => {
    vendor(...okVendor);
    const res = await call(path);
    assert.ok(res.status < 500, `status ${res.status} for ${path}`);
    assert.equal(vendorRequests.filter((r) => r.url.endsWith('/onboarding-url')).length, 0);
  }),
};

export type PropertyName = 'onboardingLink' | 'result' | 'pages';

/** How many runs each property gets per unit of `runs` (the link route has the most to cover). */
export const WEIGHT: Record<PropertyName, number> = { onboardingLink: 1, result: 0.5, pages: 0.25 };

export async function check(name: PropertyName, runs: number, seed: number): Promise<void> {
  await fc.assert(properties[name], { numRuns: Math.max(1, Math.round(runs * WEIGHT[name])), seed, includeErrorInReport: true });
}
