/**
 * The one typed client of the idv vendor (its interface document, section
 * 4). Only the idv adapter (and the sandbox's tests) talk to the vendor
 * through it; the sandbox is just another vendor behind it. Explicit
 * requests to a fixed base with the credentials added here, every answer
 * parsed by the spec's schemas, every exchange through `vendors/http.ts` (a
 * hard timeout around headers and body, `redirect: 'manual'`, no retries:
 * the onboarding link may send an SMS).
 */
import type * as z from 'zod/mini';
import {
  ErrorObject,
  OnboardingUrlResponse,
  ResultResponse,
  RuokResponse,
  SearchResponse,
  type Entity,
  type OnboardingUrlRequest,
  type ResultRequest,
  type SearchOptions,
} from './schemas';
import { systemClock } from '../../lib/clock';
import { VendorError, vendorOutcome, type VendorFault, type VendorOutcome } from '../errors';
import { badAnswer, exchange } from '../http';
import type { AdapterOperation } from '../adapter';
import { ourField } from './mapping';

export interface VendorConfig {
  /** `{base_url}`, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  customerId: string;
  childId?: string | undefined;
  /** Truncated to 64 characters here, as the spec says the vendor would. */
  channel: string;
  timeoutMs: number;
  searchPath: string;
  /** How requests leave: global `fetch`, or an in-process call into the sandbox. */
  fetch: (request: Request) => Promise<Response>;
  /** Told about each call once it is over (the operator's `vendor.call` event). Must not throw. */
  onCall?: (operation: VendorOperation, outcome: VendorOutcome, ms: number) => void;
  /** The clock a call's time is measured with (default the system's). */
  now?: () => number;
}

/** The spec's four operations, as the operator's events name them. */
export type VendorOperation = 'onboarding-url' | 'result' | 'search' | 'ruok';
export { VendorError, vendorOutcome, type VendorFault, type VendorOutcome };

const MAX_CHANNEL = 64;

export const ADAPTER_OPERATION: Record<VendorOperation, AdapterOperation> = {
  'onboarding-url': 'link',
  result: 'result',
  search: 'search',
  ruok: 'health',
};
const OPERATION = Object.fromEntries(Object.entries(ADAPTER_OPERATION).map(([k, v]) => [v, k])) as Record<
  AdapterOperation,
  VendorOperation
>;

/**
 * An error status as a fault: the vendor's ErrorObject when it sent one, and
 * for a 400/422 the fields of our request it refused, in our names (the
 * routes answer 400 naming them, never repeating the vendor's text).
 */
function statusFault(status: number, json: unknown): VendorFault {
  const parsed = ErrorObject.safeParse(json);
  const error = parsed.success ? parsed.data : undefined;
  if ((status !== 400 && status !== 422) || !error) return { kind: 'status', status, ...(error ? { error } : {}) };
  const fields = (error.issues ?? []).map((i) => ourField(i.issueLocation));
  return { kind: 'status', status, error, fields: fields.length ? fields : ['<body>'] };
}

export function createVendorClient(config: VendorConfig) {
  const base = config.baseUrl.replace(/\/+$/, '');
  const onCall = config.onCall;
  const ctx = {
    now: config.now ?? systemClock,
    linkMaxMs: 0, // links are capped by the adapter, not here
    timeoutMs: config.timeoutMs,
    fetch: config.fetch,
    ...(onCall ? { onCall: (op: AdapterOperation, outcome: VendorOutcome, ms: number) => onCall(OPERATION[op], outcome, ms) } : {}),
  };

  function headers(): Headers {
    const h = new Headers({
      api_key: config.apiKey,
      'X-Service-CustomerID': config.customerId,
      'X-Service-Channel': config.channel.slice(0, MAX_CHANNEL),
      'Content-Type': 'application/json',
      Accept: 'application/json',
    });
    if (config.childId) h.set('X-Service-CustomerChildID', config.childId);
    return h;
  }

  function call<S extends z.ZodMiniType>(
    operation: VendorOperation,
    method: 'GET' | 'POST',
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const request = new Request(base + path, {
      method,
      headers: headers(),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return exchange(ctx, ADAPTER_OPERATION[operation], request, ({ status, json }) => {
      if (status < 200 || status > 299) throw new VendorError(statusFault(status, json));
      const parsed = schema.safeParse(json);
      if (!parsed.success) throw badAnswer(status);
      return parsed.data;
    });
  }

  return {
    /** 4.1 — POST {base}/idv/v2/idvalidate/onboarding-url */
    onboardingUrl: (body: OnboardingUrlRequest) =>
      call('onboarding-url', 'POST', '/idv/v2/idvalidate/onboarding-url', OnboardingUrlResponse, body),
    /** 4.2 — POST {base}/idv/v2/idvalidate/result */
    result: (body: ResultRequest) => call('result', 'POST', '/idv/v2/idvalidate/result', ResultResponse, body),
    /** 4.3 — POST {base}{KYC_SEARCH_PATH}?child&searchType&onlyEntityIds&resultLimit */
    search: (criteria: Entity, options: SearchOptions = {}) => {
      const q = new URLSearchParams();
      if (options.child !== undefined) q.set('child', String(options.child));
      if (options.searchType !== undefined) q.set('searchType', options.searchType);
      if (options.onlyEntityIds !== undefined) q.set('onlyEntityIds', String(options.onlyEntityIds));
      if (options.resultLimit !== undefined) q.set('resultLimit', String(options.resultLimit));
      const path = '/' + config.searchPath.replace(/^\/+/, '');
      return call('search', 'POST', q.size ? `${path}?${q.toString()}` : path, SearchResponse, criteria);
    },
    /** 4.4 — GET {base}/v2/kyc/ruok */
    ruok: () => call('ruok', 'GET', '/v2/kyc/ruok', RuokResponse),
  };
}

export type VendorClient = ReturnType<typeof createVendorClient>;
