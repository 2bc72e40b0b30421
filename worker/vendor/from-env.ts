/**
 * Builds the vendor client from the worker's configuration: the configured
 * vendor over the network, or the built-in sandbox called in-process (no
 * network round trip), with the credentials of the partner the call works
 * for (its child ID and key) or, without one, the operator's. Requests have a
 * context; Durable Object alarms and queue consumers do not, so the core
 * takes only the environment and the worker's own origin (where the sandbox
 * lives).
 */
import type { Context } from 'hono';
import { DEFAULTS, timeoutMs, usesSandbox, type AppEnv, type Env } from '../env';
import type { Partner } from '../partners/partner';
import { sandbox } from '../sandbox/app';
import { emitOne, type WaitUntil } from '../ops/events';
import { createVendorClient, type VendorClient } from './client';

export type VendorCredentials = Pick<Partner, 'customerId' | 'childId' | 'apiKey'>;

export interface VendorOptions {
  /** The worker's own origin: the sandbox derives its hosted-flow links from it. */
  origin: string;
  ctx?: Parameters<typeof sandbox.fetch>[2];
  /** Told each answer's status (for a request's log line). */
  onStatus?: (status: number) => void;
  /** Whose call it is, for the operator's `vendor.call` event (none: the operator's own, e.g. /api/ruok without a partner). */
  partnerId?: string;
  /** Where the event's send may run after the answer (a request's or a Durable Object's context). */
  waitUntil?: WaitUntil;
}

export function vendorClient(
  env: Env,
  as: VendorCredentials,
  { origin, ctx, onStatus, partnerId, waitUntil }: VendorOptions,
): VendorClient {
  const inSandbox = usesSandbox(env);
  return createVendorClient({
    baseUrl: inSandbox ? `${origin}/sandbox` : env.KYC_BASE_URL!.trim(),
    apiKey: as.apiKey,
    customerId: as.customerId,
    childId: as.childId,
    channel: env.KYC_CHANNEL || DEFAULTS.channel,
    timeoutMs: timeoutMs(env),
    searchPath: env.KYC_SEARCH_PATH || DEFAULTS.searchPath,
    fetch: async (request) => {
      const response = inSandbox ? await sandbox.fetch(request, env, ctx) : await fetch(request);
      onStatus?.(response.status);
      return response;
    },
    onCall: (operation, outcome, ms) =>
      emitOne(env, waitUntil ?? (ctx as WaitUntil | undefined), partnerId, { type: 'vendor.call', operation, outcome, ms }),
  });
}

export function vendorFor(c: Context<AppEnv>, as: VendorCredentials): VendorClient {
  let ctx: VendorOptions['ctx'];
  try {
    ctx = c.executionCtx;
  } catch {
    ctx = undefined; // app.request() in node tests has no execution context
  }
  const partnerId = 'id' in as && typeof as.id === 'string' ? as.id : c.get('partner')?.id;
  return vendorClient(c.env, as, {
    origin: new URL(c.req.url).origin,
    ctx,
    onStatus: (status) => c.set('vendorStatus', status),
    ...(partnerId ? { partnerId } : {}),
  });
}
