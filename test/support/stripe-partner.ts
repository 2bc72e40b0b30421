/**
 * A partner on Stripe in the node tier: the local stack's app (the Stripe
 * double in process) with the environment partner on `stripe`, a partner
 * page and a server key, the verifications in their in-memory twin; the
 * person's details and a JSON POST as the page or the partner's server
 * sends it. For the tests of what reaches Stripe and what is kept of it.
 */
import type { Env } from '../../worker/lib/env';
import { adultDateOfBirth } from './dates';
import { nodeApp } from './node-app';
import { nodeEnv } from './node-env';
import { MemoryVerifications, useNodeTwins } from './node-twins';

/** The worker's own origin in these tests. */
export const WORKER = 'http://127.0.0.1:8787';
/** The partner's page. */
export const PAGE = 'https://partner.example';

/** The stack: `name` makes its session secret its own; `serverKey` is the partner's server key. */
export function stripePartnerStack(name: string, serverKey: string) {
  const env = nodeEnv({
    KYC_VENDOR: 'stripe',
    ALLOWED_ORIGINS: PAGE,
    SESSION_SECRET: `${name}-test-session-secret-0123456789`,
    PARTNER_SERVER_KEYS: serverKey,
    LIMIT_OPEN_PER_IP: '1000000',
  });
  const store = new MemoryVerifications(env, { now: () => Date.now() });
  useNodeTwins(env, { verifications: store });
  return { env, store };
}

/** A request to the app at `path` (on the worker's origin unless a full URL). */
export async function request(env: Env, path: string, init: RequestInit = {}) {
  return nodeApp.request(path.startsWith('http') ? path : `${WORKER}${path}`, init, env);
}

/** A JSON POST (from the partner's page unless `headers` say otherwise), and its JSON answer. */
export async function post(env: Env, path: string, json: unknown, headers: Record<string, string> = { Origin: PAGE }) {
  const res = await request(env, path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(json),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** The person's details, as the widget sends them. */
export const details = {
  name: { givenName: 'Ann', familyName: 'Lee' },
  dateOfBirth: adultDateOfBirth(),
  phone: { code: '+61', number: '0412 345 678' },
  consent: true,
};
