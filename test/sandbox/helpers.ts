/** Shared set-up of the sandbox contract suite: clients per caller, error assertions. */
import assert from 'node:assert/strict';
import type { Env } from '../../worker/lib/env';
import { sandbox } from '../../sandbox/app';
import { DEFAULT_CREDENTIALS } from '../../sandbox/config';
import { createVendorClient, VendorError, type VendorClient } from '../../worker/vendors/idv/client';
import type { OnboardingUrlRequest } from '../../worker/vendors/idv/schemas';
import { nodeEnv } from '../support/node-env';

export const ORIGIN = 'https://kyc.test';
export const BASE = `${ORIGIN}/sandbox`;
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The defaults plus a second customer (no child search) for the "another customer" column. */
export const CREDENTIALS = {
  customers: [
    ...DEFAULT_CREDENTIALS.customers,
    {
      customerId: 'other-customer',
      apiKey: ['other-key-old', 'other-key'],
      childSearch: false,
      children: [{ childId: 'other-child', apiKey: 'other-child-key' }],
    },
  ],
};

export const env: Env = nodeEnv({ SANDBOX_CREDENTIALS: JSON.stringify(CREDENTIALS) });

export interface Creds {
  customerId: string;
  apiKey: string;
  childId?: string;
}
export const parent: Creds = { customerId: 'demo-customer', apiKey: 'sandbox-key' };
export const childA: Creds = { customerId: 'demo-customer', childId: 'demo-child-a', apiKey: 'sandbox-key-a' };
export const childB: Creds = { customerId: 'demo-customer', childId: 'demo-child-b', apiKey: 'sandbox-key-b' };
export const other: Creds = { customerId: 'other-customer', apiKey: 'other-key' };

export function call(request: Request, e: Env = env): Promise<Response> {
  return Promise.resolve(sandbox.fetch(request, e));
}

export function client(creds: Creds, e: Env = env, channel = 'api'): VendorClient {
  return createVendorClient({
    baseUrl: BASE,
    apiKey: creds.apiKey,
    customerId: creds.customerId,
    childId: creds.childId,
    channel,
    timeoutMs: 2000,
    searchPath: '/v2/kyc/entity/search',
    fetch: (r) => call(r, e),
  });
}

export function headers(creds: Partial<Creds>, extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { 'Content-Type': 'application/json', ...extra };
  if (creds.apiKey) h.api_key = creds.apiKey;
  if (creds.customerId) h['X-Service-CustomerID'] = creds.customerId;
  if (creds.childId) h['X-Service-CustomerChildID'] = creds.childId;
  return h;
}

/** A raw request to the sandbox (for what the typed client cannot send). */
export async function raw(
  method: string,
  path: string,
  opts: { creds?: Partial<Creds>; body?: string | object; headers?: Record<string, string>; env?: Env } = {},
): Promise<{ status: number; body: any; response: Response }> {
  const response = await call(
    new Request(BASE + path, {
      method,
      headers: headers(opts.creds ?? {}, opts.headers),
      body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
    }),
    opts.env ?? env,
  );
  const text = await response.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body, response };
}

/** Asserts a spec ErrorObject: errorCode, errorMsg, issues[{issue, issueLocation}], ULID requestId. */
export function assertErrorObject(body: any, errorCode?: string, issueLocation?: string): void {
  assert.equal(typeof body, 'object', 'an ErrorObject body');
  assert.equal(typeof body.errorCode, 'string');
  assert.equal(typeof body.errorMsg, 'string');
  assert.ok(Array.isArray(body.issues), 'issues[]');
  for (const i of body.issues) {
    assert.equal(typeof i.issue, 'string');
    assert.equal(typeof i.issueLocation, 'string');
  }
  assert.match(body.requestId, ULID);
  if (errorCode) assert.equal(body.errorCode, errorCode);
  if (issueLocation) {
    assert.ok(
      body.issues.some((i: any) => i.issueLocation === issueLocation),
      `expected an issue at ${issueLocation}, got ${JSON.stringify(body.issues.map((i: any) => i.issueLocation))}`,
    );
  }
}

/** Awaits a client call that must fail with `status` and an ErrorObject. */
export async function rejects(p: Promise<unknown>, status: number, errorCode?: string, issueLocation?: string): Promise<any> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof VendorError, `expected a VendorError, got ${String(err)}`);
    assert.equal(err.fault.kind, 'status');
    assert.equal(err.status, status, JSON.stringify('error' in err.fault ? err.fault.error : undefined));
    const body = 'error' in err.fault ? err.fault.error : undefined;
    assertErrorObject(body, errorCode, issueLocation);
    return body;
  }
  assert.fail(`expected a ${status}`);
}

export const person = (familyName = 'Lee', givenName = 'Ann', extra: Partial<OnboardingUrlRequest> = {}): OnboardingUrlRequest => ({
  consent: true,
  entity: { name: { givenName, familyName }, dateOfBirth: { dateOfBirth: '1990-02-03' } },
  successRedirectURL: 'https://partner.test/page?kyc_return=success',
  errorRedirectURL: 'https://partner.test/page?kyc_return=error',
  ...extra,
});

/** Presses a button of the hosted flow; returns the response (redirects not followed). */
export async function press(url: string, outcome: 'complete' | 'fail', e: Env = env): Promise<Response> {
  return call(new Request(url, { method: 'POST', body: new URLSearchParams({ outcome }) }), e);
}
