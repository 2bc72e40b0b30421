/**
 * Builds the vendor client from the worker's configuration: the configured
 * vendor over the network, or the sandbox called in-process (no network
 * round trip) when the entry plugged one in (the `inProcessVendor` port), with the credentials of the partner the call works
 * for (its child ID and key) or, without one, the operator's. Requests have a
 * context; Durable Object alarms and queue consumers do not, so the core
 * takes only the environment and the worker's own origin (where the sandbox
 * lives).
 */
import type { Context, ExecutionContext } from 'hono';
import { config } from '../config';
import type { Env } from '../lib/env';
import type { AppEnv } from '../app-env';
import type { Ports } from '../ports';
import type { Partner } from '../partners/partner';
import { emitOne, type WaitUntil } from '../ops/events';
import { createVendorClient, type VendorClient } from './client';

export type VendorCredentials = Pick<Partner, 'customerId' | 'childId' | 'apiKey'>;

export interface VendorOptions {
  /** The worker's own origin: the sandbox derives its hosted-flow links from it. */
  origin: string;
  ctx?: ExecutionContext;
  /** Told each answer's status (for a request's log line). */
  onStatus?: (status: number) => void;
  /** Whose call it is, for the operator's `vendor.call` event (none: the operator's own, e.g. /api/ruok without a partner). */
  partnerId?: string;
  /** Where the event's send may run after the answer (a request's or a Durable Object's context). */
  waitUntil?: WaitUntil;
}

export function vendorClient(
  env: Env,
  ports: Pick<Ports, 'inProcessVendor'>,
  as: VendorCredentials,
  { origin, ctx, onStatus, partnerId, waitUntil }: VendorOptions,
): VendorClient {
  const { vendor } = config(env);
  const inSandbox = vendor.sandbox;
  return createVendorClient({
    baseUrl: vendor.baseUrl ?? `${origin}${ports.inProcessVendor?.path ?? ''}`,
    apiKey: as.apiKey,
    customerId: as.customerId,
    childId: as.childId,
    channel: vendor.channel,
    timeoutMs: vendor.timeoutMs,
    searchPath: vendor.searchPath,
    fetch: async (request) => {
      const response = inSandbox ? await sandboxFetch(ports, request, env, ctx) : await fetch(request);
      onStatus?.(response.status);
      return response;
    },
    onCall: (operation, outcome, ms) => emitOne(env, waitUntil ?? ctx, partnerId, { type: 'vendor.call', operation, outcome, ms }),
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
  return vendorClient(c.env, c.var.ports, as, {
    origin: new URL(c.req.url).origin,
    ctx,
    onStatus: (status) => c.set('vendorStatus', status),
    ...(partnerId ? { partnerId } : {}),
  });
}

function sandboxFetch(
  ports: Pick<Ports, 'inProcessVendor'>,
  request: Request,
  env: Env,
  ctx?: ExecutionContext,
): Response | Promise<Response> {
  // A deployment without the sandbox never gets here: its configuration guard
  // refuses to run with the sandbox as the vendor.
  if (!ports.inProcessVendor) throw new Error('This deployment has no sandbox: set KYC_BASE_URL.');
  return ports.inProcessVendor.fetch(request, env, ctx);
}
