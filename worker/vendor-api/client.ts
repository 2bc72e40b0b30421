/**
 * The one typed client of the vendor (spec section 4). Routes talk to the
 * vendor only through this; the sandbox is just another vendor behind it.
 * Explicit requests to a fixed base with the credentials added here, a hard
 * timeout around the whole exchange (headers and body), `redirect: 'manual'`,
 * and every answer parsed by the spec's schemas. No retries: the onboarding
 * link may send an SMS.
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
import { systemClock } from '../lib/clock';
import { VendorError, vendorOutcome, type VendorFault, type VendorOutcome } from '../vendors/errors';
import { retryAfterSeconds } from '../lib/retry-after';

export interface VendorConfig {
  /** `{base_url}`, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  customerId: string;
  childId?: string;
  /** Truncated to 64 characters here, as the spec says the vendor would. */
  channel: string;
  timeoutMs: number;
  searchPath: string;
  /** How requests leave: global `fetch`, or an in-process call into the sandbox. */
  fetch: (request: Request) => Promise<Response>;
  /** Told about each call once it is over (the operator's `vendor.call` event). Must not throw. */
  onCall?: (operation: VendorOperation, outcome: VendorOutcome, ms: number) => void;
}

/** The spec's four operations, as the operator's events name them. */
export type VendorOperation = 'onboarding-url' | 'result' | 'search' | 'ruok';
export { VendorError, vendorOutcome, type VendorFault, type VendorOutcome };

const MAX_CHANNEL = 64;

export function createVendorClient(config: VendorConfig) {
  const base = config.baseUrl.replace(/\/+$/, '');

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

  async function call<S extends z.ZodMiniType>(
    operation: VendorOperation,
    method: 'GET' | 'POST',
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const started = systemClock();
    let fault: VendorFault | undefined;
    try {
      return await exchange(method, path, schema, body);
    } catch (err) {
      fault = err instanceof VendorError ? err.fault : { kind: 'unreachable' };
      throw err;
    } finally {
      try {
        config.onCall?.(operation, vendorOutcome(fault), systemClock() - started);
      } catch {
        // Counting never fails a call.
      }
    }
  }

  async function exchange<S extends z.ZodMiniType>(method: 'GET' | 'POST', path: string, schema: S, body?: unknown): Promise<z.infer<S>> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new VendorError({ kind: 'timeout' }));
      }, config.timeoutMs);
    });
    const exchanging = (async () => {
      let response: Response;
      try {
        response = await config.fetch(
          new Request(base + path, {
            method,
            headers: headers(),
            body: body === undefined ? undefined : JSON.stringify(body),
            redirect: 'manual',
            signal: controller.signal,
          }),
        );
      } catch (err) {
        if (err instanceof VendorError) throw err;
        throw new VendorError(controller.signal.aborted ? { kind: 'timeout' } : { kind: 'unreachable' });
      }
      let text: string;
      try {
        text = await response.text();
      } catch {
        throw new VendorError(controller.signal.aborted ? { kind: 'timeout' } : { kind: 'bad-answer', status: response.status });
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (response.status < 200 || response.status > 299) {
        const parsed = ErrorObject.safeParse(json);
        const wait = retryAfterSeconds(response.headers.get('Retry-After'), systemClock());
        throw new VendorError({
          kind: 'status',
          status: response.status,
          error: parsed.success ? parsed.data : undefined,
          ...(wait !== undefined ? { retryAfterSeconds: wait } : {}),
        });
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) throw new VendorError({ kind: 'bad-answer', status: response.status });
      return parsed.data;
    })();
    try {
      return await Promise.race([exchanging, timeout]);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      // A timed-out exchange may still settle later; nobody is listening.
      exchanging.catch(() => {});
    }
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
