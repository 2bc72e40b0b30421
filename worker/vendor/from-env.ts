/**
 * Builds the vendor client for a request from the worker's configuration:
 * the configured vendor over the network, or the built-in sandbox called
 * in-process (no network round trip), with the credentials of the partner the
 * request works for (its child ID and key) or, without one, the operator's.
 */
import type { Context } from 'hono';
import { DEFAULTS, timeoutMs, usesSandbox, type AppEnv } from '../env';
import type { Partner } from '../partners/partner';
import { sandbox } from '../sandbox/app';
import { createVendorClient, type VendorClient } from './client';

export function vendorFor(c: Context<AppEnv>, as: Pick<Partner, 'customerId' | 'childId' | 'apiKey'>): VendorClient {
  const env = c.env;
  const inSandbox = usesSandbox(env);
  let ctx: Parameters<typeof sandbox.fetch>[2];
  try {
    ctx = c.executionCtx;
  } catch {
    ctx = undefined; // app.request() in node tests has no execution context
  }
  return createVendorClient({
    // The sandbox derives its hosted-flow links from this origin.
    baseUrl: inSandbox ? `${new URL(c.req.url).origin}/sandbox` : env.KYC_BASE_URL!.trim(),
    apiKey: as.apiKey,
    customerId: as.customerId,
    childId: as.childId,
    channel: env.KYC_CHANNEL || DEFAULTS.channel,
    timeoutMs: timeoutMs(env),
    searchPath: env.KYC_SEARCH_PATH || DEFAULTS.searchPath,
    fetch: async (request) => {
      const response = inSandbox ? await sandbox.fetch(request, env, ctx) : await fetch(request);
      c.set('vendorStatus', response.status); // for the request's log line
      return response;
    },
  });
}
