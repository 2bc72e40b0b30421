/**
 * The vendor double for node tests: msw handlers that answer with the
 * sandbox itself (sandbox/app.ts), so worker tests, the demo and the
 * contract suite all talk to the same vendor.
 *
 *   const server = setupServer(...sandboxHandlers());
 *   beforeEach(() => freshSandbox());
 */
import { http, type HttpHandler } from 'msw';
import type { Env } from '../../worker/lib/env';
import { sandbox } from '../../sandbox/app';
import { clock, memoryStore } from '../../sandbox/store';
import { nodeEnv } from './node-env';

export const SANDBOX_BASE = 'https://vendor.test/sandbox';

/** Maps `<base>/rest` onto the sandbox's own path `<origin>/sandbox/rest`, keeping method, headers, body and query. */
export function rewriteToSandboxPath(request: Request, base = SANDBOX_BASE): Request {
  const url = new URL(request.url);
  const basePath = new URL(base).pathname.replace(/\/+$/, '');
  const rest = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
  const target = new URL(`/sandbox${rest}`, url.origin);
  target.search = url.search;
  if (target.href === url.href) return request;
  return new Request(target, request);
}

/** msw handlers that serve `base/*` from the sandbox (in-memory store unless `env.SANDBOX_STORE` is given). */
export function sandboxHandlers(base = SANDBOX_BASE, env: Env = nodeEnv()): HttpHandler[] {
  const root = base.replace(/\/+$/, '');
  return [http.all(`${root}/*`, ({ request }) => sandbox.fetch(rewriteToSandboxPath(request, root), env))];
}

/** Empties the in-memory sandbox store and puts its clock back; call before each test. */
export function freshSandbox(): void {
  memoryStore.clear();
  clock.now = () => Date.now();
}

/** Moves the sandbox's clock forward (links and data expire without waiting). */
export function advanceSandboxClock(ms: number): void {
  const base = clock.now;
  clock.now = () => base() + ms;
}

/** The default credentials (docs/sandbox.md, "Credentials"). */
export const SANDBOX_CREDENTIALS = {
  parent: { customerId: 'demo-customer', apiKey: 'sandbox-key' },
  childA: { customerId: 'demo-customer', childId: 'demo-child-a', apiKey: 'sandbox-key-a' },
  childB: { customerId: 'demo-customer', childId: 'demo-child-b', apiKey: 'sandbox-key-b' },
} as const;
