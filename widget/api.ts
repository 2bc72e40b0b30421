/**
 * Calls to the worker's browser-facing API. Types only from the contract
 * (`import type`: no bytes); never worker code.
 */
import type { ErrorObject, OnboardingLinkAnswer, OnboardingLinkRequest, ResultAnswer, ResultRequest } from '../worker/contract.js';

/** A failed call, normalised: what `kyc-error` reports, plus the field issues. */
export interface Failure {
  errorCode: string;
  requestId: string;
  retryable: boolean;
  /** HTTP status; 0 when no answer came (network failure, CORS refusal). */
  status: number;
  issues: ErrorObject['issues'];
  /** Seconds from `Retry-After` (a 429), when the worker said. */
  retryAfter?: number;
}

export const failure = (errorCode: string, status = 0, retryable = true, requestId = '', issues: Failure['issues'] = []): Failure => ({
  errorCode,
  requestId,
  retryable,
  status,
  issues,
});

export const isFailure = (e: unknown): e is Failure => typeof e === 'object' && e !== null && 'errorCode' in e && 'retryable' in e;

/** One random key per submission, for the `Idempotency-Key` header. */
export function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

const RETRYABLE = [429, 502, 503, 504];

async function post<T>(url: string, body: unknown, signal?: AbortSignal, headers: Record<string, string> = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      signal,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  } catch {
    // Offline, DNS, refused connection, or a CORS refusal: the browser hides which.
    throw failure('NETWORK_ERROR');
  }
  let data: unknown;
  try {
    data = await res.json();
  } catch {
    data = undefined;
  }
  if (res.ok && data && typeof data === 'object') return data as T;
  const err = (data ?? {}) as Partial<ErrorObject>;
  const f = failure(
    err.errorCode || (res.ok ? 'BAD_ANSWER' : `HTTP_${res.status}`),
    res.status,
    RETRYABLE.includes(res.status),
    err.requestId || res.headers.get('x-request-id') || '',
    Array.isArray(err.issues) ? err.issues : [],
  );
  const wait = Number(res.headers.get('retry-after'));
  if (wait > 0) f.retryAfter = wait;
  throw f;
}

const join = (endpoint: string, path: string) => `${endpoint.replace(/\/+$/, '')}/${path}`;

/** The request is aborted with `signal` (a newer run, the element gone); the caller then ignores the outcome. */
export const createLink = (endpoint: string, body: OnboardingLinkRequest, key: string, signal?: AbortSignal) =>
  post<OnboardingLinkAnswer>(join(endpoint, 'onboarding-link'), body, signal, { 'Idempotency-Key': key });

export const getResult = (endpoint: string, body: ResultRequest, signal?: AbortSignal) => post<ResultAnswer>(join(endpoint, 'result'), body, signal);
