/**
 * worker/middleware/security-headers.ts sets exactly the headers hono's
 * `secureHeaders()` sets (it replaced it for bundle size): same names, same
 * values, replacing a handler's own, X-Powered-By removed, for both the
 * strict default and the cross-origin script variant.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hono, type MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { securityHeaders } from '../../worker/middleware/security-headers';

async function headersWith(mw: MiddlewareHandler): Promise<[string, string][]> {
  const app = new Hono();
  app.use('*', mw);
  app.get('/', (c) => c.text('ok', 200, { 'X-Powered-By': 'x', 'X-Frame-Options': 'ALLOWALL', 'Content-Type': 'text/plain' }));
  const res = await app.request('/');
  return [...res.headers].sort();
}

describe('security headers', () => {
  it('are hono secureHeaders() defaults, byte for byte', async () => {
    assert.deepEqual(await headersWith(securityHeaders() as MiddlewareHandler), await headersWith(secureHeaders()));
  });
  it('with a cross-origin resource policy for the versioned widget script', async () => {
    const ours = await headersWith(securityHeaders('cross-origin') as MiddlewareHandler);
    assert.deepEqual(ours, await headersWith(secureHeaders({ crossOriginResourcePolicy: 'cross-origin' })));
    assert.ok(ours.some(([k, v]) => k === 'cross-origin-resource-policy' && v === 'cross-origin'));
  });
});
