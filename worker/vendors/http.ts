/**
 * One vendor exchange, for adapters whose client is a plain `fetch`: a hard
 * timeout around the whole exchange (headers and body), `redirect: 'manual'`,
 * the body read as text and parsed as JSON, every failure a `VendorError`,
 * and the call reported once it is over. No retries here, ever.
 */
import type { AdapterContext, AdapterOperation } from './adapter';
import { VendorError, vendorOutcome, type VendorFault } from './errors';
import { retryAfterSeconds } from '../lib/retry-after';

/** What came back: the status and the parsed JSON (undefined when the body was not JSON). */
export interface Answer {
  status: number;
  json: unknown;
  /** The vendor's `Retry-After` in seconds, when it sent one. */
  retryAfterSeconds?: number;
}

/**
 * Sends `request` and reads its answer within `ctx.timeoutMs`; throws
 * VendorError on timeout, no connection, or an unreadable body. `read`
 * (optional) turns the answer into the caller's value, throwing a
 * VendorError for an error status or a shape the vendor's reference does
 * not give: the call is reported with that fault.
 */
export async function exchange(ctx: AdapterContext, operation: AdapterOperation, request: Request): Promise<Answer>;
export async function exchange<T>(ctx: AdapterContext, operation: AdapterOperation, request: Request, read: (a: Answer) => T): Promise<T>;
export async function exchange<T>(
  ctx: AdapterContext,
  operation: AdapterOperation,
  request: Request,
  read?: (a: Answer) => T,
): Promise<T | Answer> {
  const started = ctx.now();
  let fault: VendorFault | undefined;
  let wait: number | undefined;
  try {
    const answer = await timed(ctx, request);
    wait = answer.retryAfterSeconds;
    if (answer.status < 200 || answer.status > 299) fault = { kind: 'status', status: answer.status };
    return read ? read(answer) : answer;
  } catch (err) {
    fault = err instanceof VendorError ? err.fault : { kind: 'unreachable' };
    // A status fault carries the vendor's Retry-After, whichever adapter read it: nobody asks again before.
    if (fault.kind === 'status' && fault.retryAfterSeconds === undefined && wait !== undefined) {
      fault = { ...fault, retryAfterSeconds: wait };
      throw new VendorError(fault);
    }
    throw err instanceof VendorError ? err : new VendorError(fault);
  } finally {
    try {
      ctx.onCall?.(operation, vendorOutcome(fault), ctx.now() - started);
    } catch {
      // Counting never fails a call.
    }
  }
}

/** Marks a call that answered but not as the vendor's reference says (for `onCall`, the caller throws it). */
export const badAnswer = (status: number) => new VendorError({ kind: 'bad-answer', status });

async function timed(ctx: AdapterContext, request: Request): Promise<Answer> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new VendorError({ kind: 'timeout' }));
    }, ctx.timeoutMs);
  });
  const exchanging = (async (): Promise<Answer> => {
    let response: Response;
    try {
      response = await ctx.fetch(new Request(request, { redirect: 'manual', signal: controller.signal }));
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
    if (response.status >= 300 && response.status < 400) throw new VendorError({ kind: 'bad-answer', status: response.status });
    const wait = retryAfterSeconds(response.headers.get('Retry-After'), ctx.now());
    return { status: response.status, json, ...(wait !== undefined ? { retryAfterSeconds: wait } : {}) };
  })();
  try {
    return await Promise.race([exchanging, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    // A timed-out exchange may still settle later; nobody is listening.
    exchanging.catch(() => {});
  }
}
