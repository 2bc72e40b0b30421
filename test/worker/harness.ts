/**
 * Node-tier harness: the real Hono app through `app.request()`, with msw as
 * the vendor at https://vendor.test. Records every vendor request, every
 * answer body and every log line, so tests can assert on them and the leak
 * scan can read them all.
 */
import { readFile } from 'node:fs/promises';
import { http, HttpResponse, type HttpHandler } from 'msw';
import { setupServer } from 'msw/node';
import { nodeApp as app } from '../support/node-app';
import type { Env } from '../../worker/lib/env';
import { adultDateOfBirth, isoInstantAfter } from '../support/dates';
import { newSigningJwk } from '../support/signing-keys';
import { MemoryVerifications, useNodeTwins } from '../support/node-twins';
import { nodeEnv } from '../support/node-env';

export const VENDOR = 'https://vendor.test';
export const PARTNER = 'https://partner.example';
export const WORKER = 'https://kyc.worker.test';
export const API_KEY = 'test-api-key-Zq81vT0pLx44';
export const SECRET = 'test-session-secret-9f8e7d6c5b4a';

/** A signing key made for this run: nothing committed can sign a result token. */
export const SIGNING_JWK = await newSigningJwk('test-key-1');

export { newSigningJwk };

export const baseEnv: Env = nodeEnv({
  PUBLIC_ORIGIN: WORKER,
  RESULT_SIGNING_KEYS: JSON.stringify([SIGNING_JWK]),
  KYC_BASE_URL: VENDOR,
  KYC_API_KEY: API_KEY,
  KYC_CUSTOMER_ID: 'cust-42',
  KYC_CUSTOMER_CHILD_ID: 'child-7',
  KYC_CHANNEL: 'partner-web-' + 'c'.repeat(70),
  KYC_FLOW_ID: 'flow-idv-1',
  KYC_PROVIDER: 'provider-x',
  KYC_SMS_SENDER_NAME: 'AcmeBank',
  KYC_SMS_TEMPLATE_ID: 'tpl-9',
  KYC_TIMEOUT_MS: '300',
  ALLOWED_ORIGINS: `${PARTNER}, https://other-partner.example`,
  SESSION_SECRET: SECRET,
  // Texted links need Turnstile with a real vendor; these suites test the rest of the SMS path
  // (api.test.ts tests the requirement itself, with this turned back on).
  SMS_REQUIRES_TURNSTILE: 'off',
  // Node requests all come from one client ("unknown"): the open-verification budgets are tested in workerd (limits-workerd.test.ts).
  LIMIT_OPEN_PER_IP: '1000000',
});

export interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}
export const vendorRequests: Seen[] = [];
export const answerBodies: string[] = [];
export const logLines: string[] = [];

export const server = setupServer();

export function startHarness(): void {
  server.listen({ onUnhandledRequest: 'error' });
  const log = console.log;
  const error = console.error;
  console.log = (...args: unknown[]) => void logLines.push(args.map(String).join(' '));
  console.error = (...args: unknown[]) => void logLines.push(args.map(String).join(' '));
  (startHarness as { restore?: () => void }).restore = () => {
    console.log = log;
    console.error = error;
  };
}
export function stopHarness(): void {
  (startHarness as { restore?: () => void }).restore?.();
  server.close();
}

/** Installs vendor handlers that record what they receive. */
export function vendor(...handlers: HttpHandler[]): void {
  vendorRequests.length = 0;
  server.resetHandlers(...handlers);
}

export async function record(request: Request): Promise<void> {
  const text = await request.clone().text();
  vendorRequests.push({
    method: request.method,
    url: request.url,
    headers: Object.fromEntries(request.headers.entries()),
    body: text ? JSON.parse(text) : undefined,
  });
}

export const linkAnswer = {
  entity: { entityId: '7d9c1b2e-1111-4222-8333-444455556666', name: { familyName: 'Nguyen' } },
  status: 'CREATED',
  url: 'https://flow.vendor.test/f/abc',
  urlExpiry: isoInstantAfter(3600),
};

export const okVendor = [
  http.post(`${VENDOR}/idv/v2/idvalidate/onboarding-url`, async ({ request }) => {
    await record(request);
    return HttpResponse.json(linkAnswer);
  }),
  http.post(`${VENDOR}/idv/v2/idvalidate/result`, async ({ request }) => {
    await record(request);
    return HttpResponse.json({
      checkStatus: 'CHECKED_SUCCESS_CLEAR',
      entity: { entityId: linkAnswer.entity.entityId, name: { familyName: 'Nguyen' } },
    });
  }),
  http.get(`${VENDOR}/v2/kyc/ruok`, async ({ request }) => {
    await record(request);
    return HttpResponse.json({ status: 'OK' });
  }),
];

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function call(path: string, init: RequestInit & { json?: unknown } = {}, env: Env = baseEnv): Promise<Answer> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  }
  if (!headers.has('Origin') && (init.method ?? 'GET') !== 'GET') headers.set('Origin', PARTNER);
  const res = await app.request(`${WORKER}${path}`, { ...init, headers, body }, useNodeTwins(env));
  const text = await res.text();
  answerBodies.push(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const person = {
  name: { givenName: 'Thi Minh', familyName: 'Nguyen-Quartermaine' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};

/** Values that must never leave the worker in an answer or a log line. */
export const secrets = [API_KEY, SECRET, 'Thi Minh', 'Nguyen-Quartermaine', person.dateOfBirth, '412345678', '0412 345 678'];

/** An env of its own, with verifications in memory on a clock the test moves (`clock.t`). */
export function clockedEnv() {
  const clock = {
    t: Date.now(),
    now() {
      return this.t;
    },
  };
  const e: Env = { ...baseEnv };
  const store = new MemoryVerifications(e, clock);
  useNodeTwins(e, { verifications: store });
  return { e, store, clock };
}

/**
 * The `ASSETS` binding as far as the phone's pages use it: the page dictionaries
 * (`/i18n/pages/<lang>.json`), read from their sources, which the build copies
 * into the static assets unchanged. Anything else is a 404. Counts its reads.
 */
export const pageAssets = {
  reads: [] as string[],
  async fetch(input: string): Promise<Response> {
    const path = new URL(input).pathname;
    pageAssets.reads.push(path);
    const m = /^\/i18n\/pages\/([\w-]+)\.json$/.exec(path);
    if (!m) return new Response('not found', { status: 404 });
    try {
      const text = await readFile(new URL(`../../worker/handoff/page-strings/${m[1]}.json`, import.meta.url), 'utf8');
      return new Response(text, { headers: { 'Content-Type': 'application/json' } });
    } catch {
      return new Response('not found', { status: 404 });
    }
  },
};
