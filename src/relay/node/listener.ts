import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';

/** Anything with a Web-standard fetch: the relay createRelay returns. */
export interface FetchHandler {
  /** Answer one request. */
  fetch(request: Request, env?: unknown): Response | Promise<Response>;
}

/**
 * The relay as a Node request listener `(req, res)`: for node:http, Express (`app.use('/qp', listener)`) or
 * Fastify (a hijacked reply). The request body must still be unread: mount it before any body parser. The Node
 * request rides along, so the relay sees the client's socket address.
 */
export function toNodeListener(relay: FetchHandler): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return getRequestListener((request, env) => relay.fetch(request, env));
}
