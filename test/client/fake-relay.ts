import { createQuestPoints, type QuestPoints, type QuestPointsOptions } from '../../src/client/index.js';
import type { AwardBody, BatchRequest, QueuedAward } from '../../src/protocol/index.js';

// A scripted stand-in for the relay: records every request and answers from a per-route handler.
export interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body, undefined for a read; its shape is the route's (see batchOf, awardsIn). */
  body: unknown;
}

/** The awards of a batch request (`POST /api/batch/points`). */
export const batchOf = (req: Seen): QueuedAward[] => (req.body as BatchRequest).awards;

/** The awards a POST carries: a batch's, or the single award's body. */
export function awardsIn(req: Seen): AwardBody[] {
  const body = req.body as Partial<BatchRequest> & AwardBody;
  return body.awards ?? [body];
}

export type Handler = (req: Seen) => Response | undefined | Promise<Response | undefined>;

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** Default behaviour: every award accepted, batch answered ok per award, reads from `points`. */
export function fakeRelay(handler: Handler = () => undefined) {
  const seen: Seen[] = [];
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input), 'http://relay.test');
    const headers = Object.fromEntries([...new Headers(init.headers).entries()].map(([k, v]) => [k.toLowerCase(), v]));
    const req: Seen = {
      method: init.method ?? 'GET',
      path: url.pathname + url.search,
      headers,
      body: init.body ? JSON.parse(String(init.body)) : undefined,
    };
    seen.push(req);
    const signal = init.signal;
    const custom = await new Promise<Response | undefined>((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason));
      Promise.resolve(handler(req)).then(resolve, reject);
    });
    if (custom) return custom;
    if (req.path === '/api/batch/points')
      return json(200, { success: true, results: batchOf(req).map((a) => ({ idempotencyKey: a.idempotencyKey, outcome: 'ok' })) });
    if (req.method === 'POST' && /\/points$/.test(req.path)) return json(200, { success: true });
    return json(404, { success: false, message: 'not found' });
  };
  /** Keys of the awards the relay saw, in order, one entry per send. */
  const sentKeys = () =>
    seen.flatMap((r) =>
      r.path === '/api/batch/points'
        ? batchOf(r).map((a) => a.idempotencyKey)
        : (r.headers['idempotency-key'] ?? r.headers.idempotency_key)
          ? [r.headers['idempotency-key'] ?? r.headers.idempotency_key!]
          : [],
    );
  return { fetch: fetch as typeof globalThis.fetch, seen, sentKeys };
}

let n = 0;
/** A storage name no other test uses (fake-indexeddb lives for the whole file). */
export const uniqueName = (prefix = 'qp-test') => `${prefix}-${++n}-${Math.random().toString(36).slice(2, 8)}`;

/** A JWT-shaped token (unsigned: the SDK only reads exp). */
export const jwt = (sub: string, expSeconds: number) =>
  `e30.${btoa(JSON.stringify({ sub, exp: expSeconds }))
    .replace(/=+$/, '')
    .replace(/\+/g, '-')
    .replace(/\//g, '_')}.sig`;

export const until = async (check: () => boolean | Promise<boolean>, timeoutMs = 5000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** The options testClients() makes a client with: player-1 in quest-1 against /api, its own storage name, short delays. */
export function testClientOptions(overrides: Partial<QuestPointsOptions> & { fetch: typeof fetch }): QuestPointsOptions {
  return {
    relayUrl: '/api',
    getToken: () => jwt('player-1', Date.now() / 1000 + 3600),
    questId: 'quest-1',
    serviceUserId: 'player-1',
    storageName: uniqueName(),
    flushDelayMs: 1,
    backoff: { baseMs: 5, maxMs: 20 },
    ...overrides,
  };
}

/**
 * Clients for a test file: player-1 in quest-1 against the relay at /api, a storage name of their own, a short
 * flush delay and backoff; `closeAll()` (in afterEach) closes every one made.
 */
export function testClients() {
  const open: QuestPoints[] = [];
  return {
    client(options: Partial<QuestPointsOptions> & { fetch: typeof fetch }) {
      const qp = createQuestPoints(testClientOptions(options));
      open.push(qp);
      return qp;
    },
    closeAll: () => Promise.all(open.splice(0).map((c) => c.close())),
  };
}
