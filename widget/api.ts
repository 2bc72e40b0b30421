/**
 * Calls to the worker's browser-facing API. Types only from the contract
 * (`import type`: no bytes); never worker code.
 */
import type {
  ErrorObject,
  OnboardingLinkAnswer,
  OnboardingLinkRequest,
  RenewLinkRequest,
  ResumeLinkRequest,
  ResultAnswer,
  ResultRequest,
  WithdrawLinkAnswer,
  WithdrawLinkRequest,
} from '../worker/contract.js';

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
  /** When that wait ends, on this browser's clock (ms since the epoch): said as a time of day. */
  retryAt?: number;
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

/** The answer, and the worker's clock when it answered (its `Date` header; NaN without one). */
async function post<T>(
  url: string,
  body: unknown,
  signal?: AbortSignal,
  headers: Record<string, string> = {},
): Promise<{ data: T; date: number }> {
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
  if (res.ok && data && typeof data === 'object') return { data: data as T, date: Date.parse(res.headers.get('date') ?? '') };
  const err = (data ?? {}) as Partial<ErrorObject>;
  const f = failure(
    err.errorCode || (res.ok ? 'BAD_ANSWER' : `HTTP_${res.status}`),
    res.status,
    RETRYABLE.includes(res.status),
    err.requestId || res.headers.get('x-request-id') || '',
    Array.isArray(err.issues) ? err.issues : [],
  );
  const wait = Number(res.headers.get('retry-after'));
  if (wait > 0) {
    f.retryAfter = wait;
    f.retryAt = Date.now() + wait * 1000;
  }
  throw f;
}

const join = (endpoint: string, path: string) => `${endpoint.replace(/\/+$/, '')}/${path}`;

/**
 * A link answer, with its expiry also on this browser's clock (`localExpiry`,
 * ISO 8601): the link's lifetime by the worker's clock, counted from now, so
 * a wrong clock here neither ends a link early nor keeps it late.
 */
export type LinkAnswer = OnboardingLinkAnswer & { localExpiry: string };

/** A link from the person's details, or a new one from a session. Aborted with `signal` (a newer run, the element gone); the caller then ignores the outcome. */
export const createLink = async (
  endpoint: string,
  body: OnboardingLinkRequest | RenewLinkRequest | ResumeLinkRequest,
  key: string,
  signal?: AbortSignal,
): Promise<LinkAnswer> => {
  const { data, date } = await post<OnboardingLinkAnswer>(join(endpoint, 'onboarding-link'), body, signal, { 'Idempotency-Key': key });
  const expiry = Date.parse(data.urlExpiry);
  const local = Number.isNaN(expiry) ? NaN : Number.isNaN(date) ? expiry : Date.now() + expiry - date;
  return { ...data, localExpiry: Number.isNaN(local) ? '' : new Date(local).toISOString() };
};

export const getResult = (endpoint: string, body: ResultRequest, signal?: AbortSignal) =>
  post<ResultAnswer>(join(endpoint, 'result'), body, signal).then((r) => r.data);

/** "Use this device instead", "Change my number": the link handed to a phone stops working (worker/browser-api/withdraw-link.ts). */
export const withdrawLink = (endpoint: string, body: WithdrawLinkRequest, signal?: AbortSignal) =>
  post<WithdrawLinkAnswer>(join(endpoint, 'withdraw-link'), body, signal).then((r) => r.data);
