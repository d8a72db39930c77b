// A webhook receiver for the suite: a real HTTP server on 127.0.0.1 (a free port) that answers each request as its
// script says: 2xx, a status (500, 410, 429 with Retry-After), a dropped connection, or an answer delayed past the
// sender's timeout. Every request is recorded with its headers, body and arrival time.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver does with one request. */
export type Reaction =
  | { ok: true }
  | { status: number; retryAfter?: string }
  /** Destroy the socket before answering. */
  | { drop: true }
  /** Answer 200 after this many ms (past the sender's timeout: it sees a timeout). */
  | { delayMs: number };

/** One request as it arrived. */
export interface Arrival {
  id: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  /** How the script answered it. */
  reaction: Reaction;
}

export interface Receiver {
  url: string;
  arrivals: Arrival[];
  /** The ids answered 2xx at once (a delayed 200 is a timeout to the sender, not counted). */
  delivered(): string[];
  /** Change the script. */
  script(react: (id: string, nth: number) => Reaction): void;
  close(): Promise<void>;
}

/** Starts a receiver; `react(id, nth)` decides the answer to the nth request (1-based) carrying that webhook id. */
export async function startReceiver(react: (id: string, nth: number) => Reaction = () => ({ ok: true })): Promise<Receiver> {
  let script = react;
  const arrivals: Arrival[] = [];
  const counts = new Map<string, number>();
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = String(request.headers['webhook-id'] ?? '');
      const nth = (counts.get(id) ?? 0) + 1;
      counts.set(id, nth);
      const reaction = script(id, nth);
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
      arrivals.push({ id, headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now(), reaction });
      if ('drop' in reaction) return request.socket.destroy();
      if ('delayMs' in reaction) {
        const timer = setTimeout(() => response.end('late'), reaction.delayMs);
        response.on('close', () => clearTimeout(timer));
        return;
      }
      if ('ok' in reaction) return response.writeHead(204).end();
      response.writeHead(reaction.status, reaction.retryAfter ? { 'retry-after': reaction.retryAfter } : {}).end('no');
    });
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    delivered: () => arrivals.filter((a) => 'ok' in a.reaction).map((a) => a.id),
    script: (next) => {
      script = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
