/**
 * Stripe Identity's VerificationSession API, from its public API reference
 * (docs/vendors.md lists the fields we use): form-encoded requests with the
 * secret key as a Bearer token, JSON answers, errors as
 * `{error: {type, code?, message?, param?}}`. A `fetch` client, no SDK (the
 * production bundle pays for every byte). No retries: `create` is never
 * repeated by this client.
 *
 * The session's `url` and `client_secret` are short-lived credentials of the
 * person: they are read from an answer and handed on, never kept or logged.
 */
import type { AdapterContext, AdapterOperation } from '../adapter';
import { VendorError } from '../errors';
import { badAnswer, exchange } from '../http';

/** Stripe's API root. */
export const STRIPE_API = 'https://api.stripe.com';
const SESSIONS = '/v1/identity/verification_sessions';

/** The fields of a VerificationSession we read (Stripe sends many more). */
export interface StripeSession {
  id: string;
  object: 'identity.verification_session';
  status: 'requires_input' | 'processing' | 'verified' | 'canceled';
  last_error: { code: string | null; reason?: string | null } | null;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  livemode: boolean;
  /** Present while the person can still use the session (requires_input); short-lived. */
  url: string | null;
  /** Seconds since the epoch. */
  created: number;
  type: string | null;
  redaction: { status: string } | null;
}

/** Stripe's error body. */
export interface StripeErrorBody {
  error: { type: string; code?: string; message?: string; param?: string };
}

export interface StripeClientConfig {
  /** STRIPE_API_BASE: `https://api.stripe.com`, or the double's root. No trailing slash. */
  base: string;
  /** STRIPE_SECRET_KEY (`sk_…` or `rk_…`). */
  secretKey: string;
}

export interface CreateSession {
  type: string;
  client_reference_id: string;
  return_url: string;
  metadata: Record<string, string>;
}

/** Stripe's form encoding: nested keys as `metadata[key]`. */
export function formEncode(params: Record<string, string | Record<string, string> | undefined>): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (typeof value === 'string') form.append(key, value);
    else for (const [k, v] of Object.entries(value)) form.append(`${key}[${k}]`, v);
  }
  return form.toString();
}

function isSession(json: unknown): json is StripeSession {
  if (typeof json !== 'object' || json === null) return false;
  const s = json as Partial<StripeSession>;
  return (
    typeof s.id === 'string' &&
    s.object === 'identity.verification_session' &&
    typeof s.status === 'string' &&
    ['requires_input', 'processing', 'verified', 'canceled'].includes(s.status) &&
    (s.last_error === null || s.last_error === undefined || typeof s.last_error === 'object') &&
    typeof s.livemode === 'boolean' &&
    typeof s.created === 'number'
  );
}

function stripeError(json: unknown): StripeErrorBody['error'] | undefined {
  if (typeof json !== 'object' || json === null || !('error' in json)) return undefined;
  const e = json.error;
  return typeof e === 'object' && e !== null && typeof (e as { type?: unknown }).type === 'string'
    ? (e as StripeErrorBody['error'])
    : undefined;
}

/** Stripe's request parameters that are ours, in our words (a refused `return_url` is the caller's `returnUrl`). */
const OUR_FIELD: Record<string, string> = { return_url: 'returnUrl' };

export function createStripeClient(ctx: AdapterContext, config: StripeClientConfig) {
  const base = config.base.replace(/\/+$/, '');

  async function call(operation: AdapterOperation, method: 'GET' | 'POST', path: string, body?: string): Promise<StripeSession> {
    const json = await send(operation, method, path, body);
    if (!isSession(json)) throw badAnswer(200);
    return json;
  }

  async function send(operation: AdapterOperation, method: 'GET' | 'POST', path: string, body?: string): Promise<unknown> {
    const headers = new Headers({ Authorization: `Bearer ${config.secretKey}`, Accept: 'application/json' });
    if (body !== undefined) headers.set('Content-Type', 'application/x-www-form-urlencoded');
    const { status, json } = await exchange(ctx, operation, new Request(base + path, { method, headers, body }));
    if (status < 200 || status > 299) {
      const error = stripeError(json);
      const field = error?.param ? OUR_FIELD[error.param] : undefined;
      throw new VendorError({ kind: 'status', status, ...(field ? { fields: [field] } : {}) });
    }
    return json;
  }

  const one = (id: string) => `${SESSIONS}/${encodeURIComponent(id)}`;
  return {
    /** POST /v1/identity/verification_sessions */
    create: (params: CreateSession) => call('link', 'POST', SESSIONS, formEncode({ ...params })),
    /** GET /v1/identity/verification_sessions/{id}: a fresh `url` while the session requires input. */
    retrieve: (id: string, operation: AdapterOperation = 'result') => call(operation, 'GET', one(id)),
    /** POST /v1/identity/verification_sessions/{id}/cancel (only while it requires input). */
    cancel: (id: string) => call('cancel', 'POST', `${one(id)}/cancel`, ''),
    /** POST /v1/identity/verification_sessions/{id}/redact */
    redact: (id: string) => call('redact', 'POST', `${one(id)}/redact`, ''),
    /** GET /v1/identity/verification_sessions?limit=1: the key works and Stripe answers (Stripe has no health route). */
    ping: async () => {
      const json = await send('health', 'GET', `${SESSIONS}?limit=1`);
      if (typeof json !== 'object' || json === null || (json as { object?: unknown }).object !== 'list') throw badAnswer(200);
    },
  };
}

export type StripeClient = ReturnType<typeof createStripeClient>;
