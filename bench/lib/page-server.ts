/** A tiny static server on 127.0.0.1 for the bench pages (never cached). */
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { onCleanup } from './cleanup';

export interface Page {
  type: string;
  body: string | Buffer;
}

export interface PageServer {
  url: string;
  set: (path: string, page: Page) => void;
  close: () => Promise<void>;
}

export async function startPageServer(): Promise<PageServer> {
  const pages = new Map<string, Page>();
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const page = pages.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!page) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': page.type, 'Cache-Control': 'no-store' }).end(page.body);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    forget();
    for (const s of sockets) s.destroy();
    await new Promise<void>((ok) => server.close(() => ok()));
  };
  const forget = onCleanup(close);
  return {
    url: `http://127.0.0.1:${port}`,
    set: (path, page) => void pages.set(path, page),
    close,
  };
}
