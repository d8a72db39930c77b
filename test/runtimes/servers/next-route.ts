// A stand-in for Next.js's server (next is not a dependency here): it imports the App Router route module as written
// (examples/relay-nextjs/app/api/qp/[...path]/route.ts) and calls its exported method as Next does: a WHATWG Request
// in, with the route's context ({ params }), and the Response it returns sent back. Like Next's server (and Vercel's
// edge), it writes the client's address into X-Forwarded-For, which the route's trustProxy: 1 reads.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as route from '../../../examples/relay-nextjs/app/api/qp/[...path]/route.js';

const BASE = '/api/qp';
type RouteHandler = (request: Request, context: { params: Promise<{ path: string[] }> }) => Promise<Response>;

async function toRequest(req: IncomingMessage, url: URL): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  headers.set('x-forwarded-for', req.socket.remoteAddress ?? '');
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
  return new Request(url, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) });
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
  const handler = (route as unknown as Record<string, RouteHandler | undefined>)[req.method ?? 'GET'];
  if (!url.pathname.startsWith(`${BASE}/`) || !handler) {
    res.writeHead(url.pathname.startsWith(`${BASE}/`) ? 405 : 404).end();
    return;
  }
  const params = Promise.resolve({
    path: url.pathname
      .slice(BASE.length + 1)
      .split('/')
      .filter(Boolean),
  });
  const response = await handler(await toRequest(req, url), { params });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}${BASE}`);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => server.close(() => process.exit(0)).closeAllConnections());
