/**
 * A programmable stand-in for the vendor on 127.0.0.1, for tests of the worker
 * running in workerd (another process, which msw cannot reach). Each request
 * is recorded (unless `record: false`, for load runs); `behave` decides the
 * answer per request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isoInstantAfter } from './dates';

export interface VendorRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Behaviour = (req: VendorRequest, res: ServerResponse) => void | Promise<void>;

export const happyVendor: Behaviour = (req, res) => {
  res.setHeader('Content-Type', 'application/json');
  if (req.path.startsWith('/idv/v2/idvalidate/onboarding-url')) {
    res.end(
      JSON.stringify({ entity: { entityId: 'e-1' }, status: 'CREATED', url: 'http://127.0.0.1/flow/1', urlExpiry: isoInstantAfter(3600) }),
    );
  } else if (req.path.startsWith('/idv/v2/idvalidate/result')) {
    res.end(JSON.stringify({ checkStatus: 'CHECKED_SUCCESS_CLEAR', entity: { entityId: 'e-1' } }));
  } else if (req.path.startsWith('/v2/kyc/ruok')) {
    res.end(JSON.stringify({ status: 'OK' }));
  } else {
    res.statusCode = 404;
    res.end(JSON.stringify({ errorCode: 'NOT_FOUND', errorMsg: 'no', issues: [], requestId: 'x' }));
  }
};

export interface FakeVendor {
  url: string;
  requests: VendorRequest[];
  behave: (b: Behaviour) => void;
  close: () => Promise<void>;
}

export interface FakeVendorOptions {
  /** Keep every request in `requests` (default true). Load runs turn it off: memory stays flat. */
  record?: boolean;
}

export async function startFakeVendor(initial: Behaviour = happyVendor, options: FakeVendorOptions = {}): Promise<FakeVendor> {
  const record = options.record ?? true;
  let behaviour = initial;
  const requests: VendorRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const seen = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString() };
    if (record) requests.push(seen);
    try {
      await behaviour(seen, res);
    } catch {
      res.destroy();
    }
  });
  // Longer than any client keeps an idle connection: a server that closes a
  // kept-alive socket first races the client's next request on it, which
  // workerd then reports as a 502 (seen under heavy machine load).
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    behave: (b) => (behaviour = b),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
