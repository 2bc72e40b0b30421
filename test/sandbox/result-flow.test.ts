/** Contract: the result operation (spec 4.2), the hosted-flow page and its outcome rules, expiry. */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { advanceSandboxClock, freshSandbox } from '../support/vendor-sandbox';
import { assertErrorObject, call, childA, childB, client, env, other, parent, person, press, raw, rejects } from './helpers';

beforeEach(() => freshSandbox());

const checkIdOf = (res: Response) => new URL(res.headers.get('location')!).searchParams.get('checkId')!;

describe('POST /idv/v2/idvalidate/result', () => {
  it('is CHECKING from the moment the link exists, by entity, checkId or token', async () => {
    const c = client(parent);
    const link = await c.onboardingUrl(person());
    const entityId = link.entity.entityId!;
    const byEntity = await c.result({ entity: { entityId } });
    assert.equal(byEntity.checkStatus, 'CHECKING');
    assert.equal(byEntity.entity!.entityId, entityId);
    const checkId = byEntity.checkId as string;
    assert.equal((await c.result({ checkId })).checkStatus, 'CHECKING');
    const token = link.url.split('/flow/')[1]!;
    const byToken = await c.result({ token });
    assert.equal(byToken.checkStatus, 'CHECKING');
    assert.equal(byToken.entity!.entityId, entityId, 'the token stands in for the entity');
  });

  it('turns final after the hosted flow, and the checkId in the redirect names the check', async () => {
    const c = client(parent);
    const link = await c.onboardingUrl(person());
    const res = await press(link.url, 'complete');
    assert.equal(res.status, 303);
    const checkId = checkIdOf(res);
    const r = await c.result({ checkId, entity: { entityId: link.entity.entityId } });
    assert.equal(r.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.equal(r.checkId, checkId);
  });

  it('never answers another entity’s check: a checkId or token of another entity is a 404', async () => {
    const c = client(parent);
    const a = await c.onboardingUrl(person('Alpha'));
    const b = await c.onboardingUrl(person('Beta'));
    const checkB = (await c.result({ entity: { entityId: b.entity.entityId } })).checkId as string;
    await rejects(c.result({ checkId: checkB, entity: { entityId: a.entity.entityId } }), 404, 'NOT_FOUND', 'checkId');
    await rejects(c.result({ token: b.url.split('/flow/')[1]!, entity: { entityId: a.entity.entityId } }), 404, 'NOT_FOUND', 'token');
    await rejects(c.result({ checkId: crypto.randomUUID() }), 404, 'NOT_FOUND', 'checkId');
    await rejects(c.result({ entity: { entityId: crypto.randomUUID() } }), 404, 'NOT_FOUND', 'entity.entityId');
    await rejects(c.result({ token: 'nope' }), 404);
  });

  it('follows ownership: the owner and its parent see a check; siblings and other customers do not', async () => {
    const link = await client(childA).onboardingUrl(person());
    const entityId = link.entity.entityId!;
    const checkId = checkIdOf(await press(link.url, 'fail'));
    for (const creds of [childA, parent]) {
      assert.equal((await client(creds).result({ checkId })).checkStatus, 'CHECKED_FAILED');
      assert.equal((await client(creds).result({ entity: { entityId } })).checkStatus, 'CHECKED_FAILED');
    }
    for (const creds of [childB, other]) {
      await rejects(client(creds).result({ checkId }), 404);
      await rejects(client(creds).result({ entity: { entityId } }), 404);
      await rejects(client(creds).result({ token: link.url.split('/flow/')[1]! }), 404);
    }
    const parentLink = await client(parent).onboardingUrl(person());
    await rejects(client(childA).result({ entity: { entityId: parentLink.entity.entityId } }), 404, 'NOT_FOUND');
  });

  it('answers the latest check of an entity when no checkId is given', async () => {
    const c = client(parent);
    const first = await c.onboardingUrl(person());
    await press(first.url, 'fail');
    const entityId = first.entity.entityId!;
    assert.equal((await c.result({ entity: { entityId } })).checkStatus, 'CHECKED_FAILED');
    advanceSandboxClock(1000);
    await c.onboardingUrl({ entity: { entityId } }); // a new link for the same person
    assert.equal((await c.result({ entity: { entityId } })).checkStatus, 'CHECKING');
  });

  it('re-processes a finished check on reprocessResult, keeping its status', async () => {
    const c = client(parent);
    const link = await c.onboardingUrl(person());
    const entity = { entityId: link.entity.entityId };
    const pending = await c.result({ entity, reprocessResult: true });
    assert.equal(pending.checkStatus, 'CHECKING');
    assert.equal(pending.reprocessedAt, undefined, 'nothing to re-process before the check is finished');
    await press(link.url, 'complete');
    const again = await c.result({ entity, reprocessResult: true, provider: 'sandbox-idv' });
    assert.equal(again.checkStatus, 'CHECKED_SUCCESS_CLEAR');
    assert.match(String(again.reprocessedAt), /^\d{4}-\d{2}-\d{2}T/);
    const checks = await raw('GET', `/v2/kyc/entity/${entity.entityId}/checks`, { creds: parent });
    assert.equal(checks.body.checks[0].reprocessCount, 1);
    assert.equal(checks.body.checks[0].provider, 'sandbox-idv');
  });

  it('applies OCR data supplied in the entity (owner only)', async () => {
    const link = await client(childA).onboardingUrl(person());
    const entityId = link.entity.entityId!;
    const r = await client(childA).result({
      entity: { entityId, identityDocs: [{ idType: 'PASSPORT', country: 'AU', idNumber: 'PA1' }] },
    });
    assert.equal(r.entity!.identityDocs![0]!.country, 'AUS');
    await rejects(client(parent).result({ entity: { entityId, extraData: [{ kvpKey: 'x', kvpValue: 'y' }] } }), 403, 'FORBIDDEN');
  });

  it('needs something that names the check, and refuses bad input with 400', async () => {
    const c = client(parent);
    await rejects(c.result({}), 400, 'INVALID_REQUEST', 'checkId');
    await rejects(c.result({ entity: { name: { familyName: 'Lee' } } }), 400);
    const r = await raw('POST', '/idv/v2/idvalidate/result', { creds: parent, body: { checkId: 42 } });
    assert.equal(r.status, 400);
    assertErrorObject(r.body, 'INVALID_REQUEST', 'checkId');
  });
});

describe('hosted-flow page', () => {
  it('shows the name only, with two real form buttons, accessibly and without script', async () => {
    const link = await client(parent).onboardingUrl({
      ...person('Lee', 'Ann'),
      entity: {
        name: { givenName: 'Ann', familyName: 'Lee' },
        dateOfBirth: { dateOfBirth: '1987-06-05' },
        addresses: [{ country: 'AUS', town: 'Wagga' }],
      },
    });
    const res = await call(new Request(link.url));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /form-action 'self' https:\/\/partner\.test/);
    const html = await res.text();
    assert.match(html, /<html lang="en">/);
    assert.match(html, /<title>[^<]+<\/title>/);
    assert.match(html, /name="viewport"/);
    assert.match(html, /Ann Lee/);
    assert.ok(!html.includes('1987') && !html.includes('Wagga'), 'no personal data but the name');
    assert.ok(!/<script/i.test(html), 'no script');
    assert.ok(!/ style=/i.test(html) && !/<style/i.test(html), 'no inline styles');
    assert.match(html, /<form method="post"/);
    assert.match(html, /<button[^>]*type="submit"[^>]*name="outcome"[^>]*value="complete"[^>]*>Complete verification<\/button>/);
    assert.match(html, /<button[^>]*type="submit"[^>]*name="outcome"[^>]*value="fail"[^>]*>Fail verification<\/button>/);
    const css = await call(new Request(new URL('/sandbox/flow.css', link.url)));
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type')!, /^text\/css/);
  });

  it('escapes the name', async () => {
    const link = await client(parent).onboardingUrl({ entity: { name: { familyName: '<img src=x onerror=alert(1)>' } } });
    const html = await (await call(new Request(link.url))).text();
    assert.ok(!html.includes('<img'), 'markup in a name is escaped');
  });

  it('"Complete verification" → CHECKED_SUCCESS_CLEAR and a 303 to successRedirectURL, keeping its query', async () => {
    const c = client(parent);
    const link = await c.onboardingUrl(person());
    const res = await press(link.url, 'complete');
    assert.equal(res.status, 303);
    const to = new URL(res.headers.get('location')!);
    assert.equal(to.origin + to.pathname, 'https://partner.test/page');
    assert.equal(to.searchParams.get('kyc_return'), 'success');
    const checkId = to.searchParams.get('checkId')!;
    assert.equal((await c.result({ checkId })).checkStatus, 'CHECKED_SUCCESS_CLEAR');
  });

  it('"Fail verification" → CHECKED_FAILED and a 303 to errorRedirectURL', async () => {
    const c = client(parent);
    const link = await c.onboardingUrl(person());
    const res = await press(link.url, 'fail');
    assert.equal(res.status, 303);
    const to = new URL(res.headers.get('location')!);
    assert.equal(to.searchParams.get('kyc_return'), 'error');
    assert.equal((await c.result({ checkId: to.searchParams.get('checkId')! })).checkStatus, 'CHECKED_FAILED');
  });

  it('forces other statuses by family name, whichever button is pressed', async () => {
    const c = client(parent);
    const cases: [string, 'complete' | 'fail', string][] = [
      ['Notes', 'complete', 'CHECKED_SUCCESS_WITH_NOTES'],
      ['Partial', 'complete', 'CHECKED_PARTIAL_SUCCESS'],
      ['nomatch', 'complete', 'NO_MATCH'],
      ['Unprocessable', 'fail', 'UNPROCESSABLE'],
      ['Pending', 'complete', 'CHECKING'],
      ['Clear', 'fail', 'CHECKED_SUCCESS_CLEAR'],
      ['Failed', 'complete', 'CHECKED_FAILED'],
      ['Noteson', 'complete', 'CHECKED_SUCCESS_CLEAR'],
    ];
    for (const [familyName, button, status] of cases) {
      const link = await c.onboardingUrl(person(familyName));
      const res = await press(link.url, button);
      assert.equal(res.status, 303);
      assert.equal(new URL(res.headers.get('location')!).searchParams.get('kyc_return'), button === 'complete' ? 'success' : 'error');
      assert.equal((await c.result({ entity: { entityId: link.entity.entityId } })).checkStatus, status, familyName);
    }
  });

  it('shows a "done" page when no redirect URL was given', async () => {
    const link = await client(parent).onboardingUrl({ entity: { name: { familyName: 'Lee' } } });
    const res = await press(link.url, 'complete');
    assert.equal(res.status, 200);
    assert.match(await res.text(), /close this page/);
    const again = await call(new Request(link.url));
    assert.equal(again.status, 200);
    assert.match(await again.text(), /close this page/);
  });

  it('does not change a finished check on a second press', async () => {
    const c = client(parent);
    const link = await c.onboardingUrl(person());
    await press(link.url, 'complete');
    const second = await press(link.url, 'fail');
    assert.equal(second.status, 303);
    assert.equal(new URL(second.headers.get('location')!).searchParams.get('kyc_return'), 'success');
    assert.equal((await c.result({ entity: { entityId: link.entity.entityId } })).checkStatus, 'CHECKED_SUCCESS_CLEAR');
  });

  it('expires after 30 minutes: 410 with an expired message, and the check stays CHECKING', async () => {
    const c = client(parent);
    const link = await c.onboardingUrl(person());
    advanceSandboxClock(29 * 60_000);
    assert.equal((await call(new Request(link.url))).status, 200);
    advanceSandboxClock(2 * 60_000);
    const page = await call(new Request(link.url));
    assert.equal(page.status, 410);
    assert.match(await page.text(), /expired/i);
    assert.equal((await press(link.url, 'complete')).status, 410);
    assert.equal((await c.result({ entity: { entityId: link.entity.entityId } })).checkStatus, 'CHECKING');
  });

  it('answers 404 for an unknown link and 400 for an unknown button', async () => {
    const link = await client(parent).onboardingUrl(person());
    assert.equal((await call(new Request(link.url.replace(/[^/]+$/, 'unknown-link-id')))).status, 404);
    const bad = await call(new Request(link.url, { method: 'POST', body: new URLSearchParams({ outcome: 'maybe' }) }), env);
    assert.equal(bad.status, 400);
    assert.equal((await client(parent).result({ entity: { entityId: link.entity.entityId } })).checkStatus, 'CHECKING');
  });
});

describe('data expiry', () => {
  it('forgets entities and checks after SANDBOX_TTL_SECONDS', async () => {
    const e = { ...env, SANDBOX_TTL_SECONDS: '3600' };
    const c = client(parent, e);
    const link = await c.onboardingUrl(person());
    const entityId = link.entity.entityId!;
    advanceSandboxClock(3599_000);
    assert.equal((await c.result({ entity: { entityId } })).checkStatus, 'CHECKING');
    advanceSandboxClock(2000);
    await rejects(c.result({ entity: { entityId } }), 404);
    const found = await c.search({ name: { familyName: 'Lee', givenName: 'Ann' } });
    assert.equal(found.totalEntitiesMatched, 0);
  });
});
