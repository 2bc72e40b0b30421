/**
 * The fast fake vendors in a process of their own (run by lib/vendor-process.ts),
 * so that they do not share an event loop with the load generator: the spec's
 * vendor (test/support/fake-vendor.ts, answering from memory) at its own paths,
 * and the Stripe double (sandbox/stripe/app.ts, the one `npm start` runs, its
 * store in memory) under `/sandbox/stripe`, so STRIPE_API_BASE is
 * `<url>/sandbox/stripe`. A live key (`sk_live_…`) is answered as the double
 * answers the same key in test mode, with `livemode: true`: beside the fake
 * spec vendor (a real one to the worker, so live) the deployment guard
 * refuses a Stripe test key (test and live vendors mixed), and the double
 * itself refuses live keys. Beside them, `silent`: a server that takes every
 * request and never answers (a vendor that is down the slow way, so the
 * worker pays its KYC_TIMEOUT_MS). Requests are not recorded (memory stays flat under
 * load). Prints its URL as one JSON line and runs until SIGTERM.
 */
import { sandbox } from '../../sandbox/app';
import { happyVendor, startFakeVendor, type Behaviour } from '../../test/support/fake-vendor';
import { nodeEnv } from '../../test/support/node-env';

const env = nodeEnv();

const bothVendors: Behaviour = async (req, res) => {
  if (!req.path.startsWith('/sandbox/stripe/')) return happyVendor(req, res);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const live = /^Bearer (sk|rk)_live_/i.test(headers.get('authorization') ?? '');
  if (live) headers.set('authorization', headers.get('authorization')!.replace('_live_', '_test_'));
  const answer = await sandbox.fetch(
    new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.path}`, {
      method: req.method,
      headers,
      ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body: req.body }),
    }),
    env,
  );
  res.statusCode = answer.status;
  answer.headers.forEach((v, k) => {
    if (k !== 'content-length') res.setHeader(k, v);
  });
  const text = await answer.text();
  res.end(live ? text.replace('"livemode":false', '"livemode":true') : text);
};

const vendor = await startFakeVendor(bothVendors, { record: false });
const silent = await startFakeVendor(() => new Promise<void>(() => {}), { record: false });
process.stdout.write(JSON.stringify({ url: vendor.url, silent: silent.url }) + '\n');
const stop = () => void Promise.all([vendor.close(), silent.close()]).finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
