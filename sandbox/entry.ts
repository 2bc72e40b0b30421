/**
 * The sandbox as a worker of its own (e.g. `wrangler dev sandbox/entry.ts`
 * with a SANDBOX_STORE binding): the vendor double on its own host, for
 * pointing a worker's KYC_BASE_URL at `<origin>/sandbox`. The local stack does
 * not use this entry: it composes the sandbox in process
 * (worker/entry/local-app.ts). Rules for HTTP callers here: the vendor API
 * with the default credentials answers on loopback hosts only, and a
 * redirect address may point to a loopback host or the sandbox's own origin.
 */
import { Hono } from 'hono';
import { sandbox } from './app';
import { hasOwnCredentials } from './config';
import type { SandboxAppEnv } from './env';

export { SandboxStore } from './store-durable';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;
const SANDBOX_VENDOR_API = /^\/sandbox\/(idv|v2|stripe\/v1)\//;

const app = new Hono<SandboxAppEnv>();
app.use('/sandbox/*', async (c, next) => {
  const url = new URL(c.req.url);
  if (SANDBOX_VENDOR_API.test(c.req.path) && !hasOwnCredentials(c.env) && !LOOPBACK.test(url.hostname)) {
    return c.json({ errorCode: 'NOT_FOUND', errorMsg: 'There is nothing here.', issues: [] }, 404);
  }
  c.set(
    'sandboxHttpCaller',
    async (origin, requestUrl) => origin === new URL(requestUrl).origin || LOOPBACK.test(new URL(origin).hostname),
  );
  await next();
});
app.route('/', sandbox);

export default { fetch: app.fetch };
