/**
 * Whether a request comes from this machine, for what the local stack opens
 * on a laptop only (the operator console without credentials, the demo's
 * server keys). The `Host` header is the client's to choose, so a loopback
 * host name alone proves nothing once the stack listens on the network
 * (`HOST=0.0.0.0 npm start`). The connection's address decides: workerd
 * (Miniflare, `wrangler dev`) passes it to the worker as `CF-Connecting-IP`,
 * but only when the client did not send that header itself, so a client on
 * the network could still claim `127.0.0.1`. Hence also `LISTEN_HOST`, where
 * `npm start` says it listens: anything but a loopback address there and
 * nothing is opened this way. A request without an address (no connection
 * behind it) is not from this machine.
 */
import type { Env } from './env';
import { isLoopbackHost } from './origins';

/** A loopback client address: 127.0.0.0/8, ::1, or 127.x written as IPv4-mapped IPv6. */
export function isLoopbackAddress(ip: string | null | undefined): boolean {
  const a = (ip ?? '')
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return /^127(?:\.\d{1,3}){3}$/.test(a) || a === '::1' || /^::ffff:127(?:\.\d{1,3}){3}$/.test(a);
}

export function fromThisMachine(env: Pick<Env, 'LISTEN_HOST'>, requestUrl: string, headers: Headers): boolean {
  const listen = env.LISTEN_HOST?.trim();
  if (listen && !isLoopbackAddress(listen) && listen.toLowerCase() !== 'localhost') return false;
  return isLoopbackHost(new URL(requestUrl).hostname) && isLoopbackAddress(headers.get('CF-Connecting-IP'));
}
