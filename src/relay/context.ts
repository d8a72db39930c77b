import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { VerifiedClaims } from './claims.js';
import type { CounterStore, StoreErrorBehaviour } from './counter-store.js';
import type { RelayLedger } from './economy/ledger.js';
import type { Webhooks } from './economy/webhooks.js';
import type { RelayLeaderboard } from './leaderboard/feed.js';
import type { Cancellation } from './deadline.js';
import type { RelayEconomy } from './economy/step.js';
import type { LogRecord, LogSink } from './logger.js';
import type { RelayMetrics } from './metrics.js';
import type { PlayerQueue } from './player-queue.js';
import type { Refusal, ResolvedPolicy } from './policy.js';
import type { IdempotencyRecordStore } from './records.js';
import { redactSecrets } from './redact.js';
import type { Upstream } from './upstream.js';

/** Per-request values the middlewares hand to the routes. */
export type RelayEnv = {
  Variables: {
    requestId: string;
    claims: VerifiedClaims;
    /** The caller's bearer token, kept only to redact it. */
    token: string | undefined;
    /** The request's body, read and parsed by the route's jsonBody() (hygiene.ts). */
    json: unknown;
    /** Why the request (or awards of a batch) was refused (respond.ts, batch.ts): its access log line names it. */
    refusal: Pick<Refusal, 'code' | 'message'> | undefined;
  };
};

export type RelayContext = Context<RelayEnv>;

/** The per-request values (RelayEnv's). */
export type Variables = RelayEnv['Variables'];

/**
 * What the steps read of the request object itself: its body, and off Node's socket its headers and signal (a Request
 * is one). Also what a `clientAddress` function is handed (client-ip.ts).
 */
export interface StepRaw {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly signal: AbortSignal;
  readonly body: Request['body'];
  /** The body as text (read once). */
  text(): Promise<string>;
}

/**
 * What the award route's steps (app.ts `award`) read and write of a request's context, and nothing more: Hono's
 * Context<RelayEnv> is one (A = its Response), the Node fast path's AwardContext another (node/fast-award.ts, A = the
 * answer it writes itself). The steps are typed against this, so a step that needs more of Hono's context than the
 * fast path gives fails to compile instead of failing on the fast path.
 */
export interface StepContext<A = Response> {
  readonly env: unknown;
  readonly req: {
    readonly method: string;
    readonly path: string;
    readonly url: string;
    readonly raw: StepRaw;
    /** The route's path parameters (the award route's questId). */
    param(): Record<string, string>;
    header(name: string): string | undefined;
  };
  get<K extends keyof Variables>(key: K): Variables[K];
  set<K extends keyof Variables>(key: K, value: Variables[K]): void;
  /** A header of the answer, set before it is made. */
  header(name: string, value: string): void;
  /** The answer: JSON with this status and the headers set so far. */
  json(object: object, status?: ContentfulStatusCode): A;
}

/** A middleware step run both ways (Hono's router and the fast path): its answer when it refuses, else next()'s. */
export type StepMiddleware = <A>(c: StepContext<A>, next: () => Promise<void>) => Promise<A | undefined>;

/** Everything createRelay resolved once, shared by every request. */
export interface RelayRuntime {
  policy: ResolvedPolicy;
  upstream: Upstream;
  store: CounterStore;
  /** What a failing counter store means for a request: allowed ('open') or 503 ('closed'). */
  onStoreError: StoreErrorBehaviour;
  metrics: RelayMetrics;
  log: LogSink;
  batchConcurrency: number;
  /** Per award request (single or batch): work not done by then is answered retry / 504. */
  deadlineMs: number;
  /** The upstream idempotency key of a player's client key (keys.ts). */
  upstreamKey: (sub: string, clientKey: string) => string;
  /** One player's awards go to the service one request after another. */
  players: PlayerQueue;
  /** API key and relay secret: masked in anything the relay writes. */
  secrets: string[];
  /** The idempotency record (RelayOptions `idempotency`), absent when off; `failed` logs a store failure (and reads as no record). */
  records?: { store: IdempotencyRecordStore; ttlMs: number; failed(operation: 'read' | 'write', error: unknown): undefined } | undefined;
  /** The economy rules' store, runtime bans (the admin routes' BanList) and validate() hook (economy/step.ts). */
  economy?: RelayEconomy | undefined;
  /** The ledger (RelayOptions `ledger`), absent when off: every award's decision and every operator action (economy/ledger.ts). */
  ledger?: RelayLedger | undefined;
  /** The webhook deliverer (RelayOptions `webhooks`), absent when off: its dead letters and replay (economy/webhooks.ts). */
  webhooks?: Webhooks | undefined;
  /** The leaderboard (RelayOptions `leaderboard`), absent when off: its store and naming hook (leaderboard/feed.ts). */
  leaderboard?: RelayLeaderboard | undefined;
}

export function redactFor(runtime: RelayRuntime, c: StepContext<unknown>, text: string): string {
  return redactSecrets(text, runtime.secrets, c.get('token'));
}

/** A log line about this request, secrets masked. */
export function logEvent(runtime: RelayRuntime, c: StepContext<unknown>, level: LogRecord['level'], msg: string, extra: Partial<LogRecord> = {}) {
  const token = c.get('token');
  runtime.log({
    time: new Date().toISOString(),
    level,
    requestId: c.get('requestId') ?? '',
    method: c.req.method,
    path: redactSecrets(c.req.path, runtime.secrets, token),
    ...extra,
    msg: redactSecrets(msg, runtime.secrets, token),
  });
}

/**
 * What @hono/node-server hands the fetch handler on Node (startRelay, toNodeListener): the request as the socket
 * parsed it and the response being written. Read structurally: the core imports nothing from Node.
 */
interface NodeExchange {
  incoming: { headers: Record<string, string | string[] | undefined>; rawHeaders: string[] };
  outgoing: {
    setHeader(name: string, value: string): unknown;
    once(event: 'close', listener: () => void): unknown;
    off(event: 'close', listener: () => void): unknown;
    readonly writableFinished: boolean;
  };
}

/** Marks a request object built straight from a Node request (the fast path's, node/fast-award.ts): its value is that request. */
export const SOCKET_REQUEST: unique symbol = Symbol('quest-points.socket-request');

/** @hono/node-server's own key for the Node request under its lightweight Request (found once, by its name). */
let adapterKey: symbol | undefined;

/** The Node request `raw` was built from, when it is the adapter's own lightweight Request or the fast path's. */
function socketRequestOf(raw: object): unknown {
  const own = (raw as { [SOCKET_REQUEST]?: unknown })[SOCKET_REQUEST];
  if (own !== undefined) return own;
  adapterKey ??= Object.getOwnPropertySymbols(raw).find((key) => key.description === 'incomingKey');
  return adapterKey === undefined ? undefined : (raw as Record<symbol, unknown>)[adapterKey];
}

/**
 * Node's request and response, only when the Request the app was handed is the one the socket's request became: then
 * reading a header off Node's request is reading it off the Request, only cheaper. A wrapper that hands the relay a
 * Request of its own (the dev server drops the Origin its loopback CORS already checked: src/dev/stack.ts) passes
 * the same bindings along; reading Node's request then would bypass it, so the relay reads what it was handed.
 * Request facts (headers, origin, scheme, client address) are read here and in facts.ts, nowhere else.
 */
export function socketExchange(c: StepContext<unknown>): NodeExchange | undefined {
  const env = c.env as Partial<NodeExchange> | undefined;
  const incoming = env?.incoming;
  if (!Array.isArray(incoming?.rawHeaders) || typeof env?.outgoing?.setHeader !== 'function') return undefined;
  return socketRequestOf(c.req.raw) === incoming ? (env as NodeExchange) : undefined;
}

/**
 * A request header, from the Request the app was handed. When that Request is the socket's own (socketExchange) it is
 * read off Node's parsed headers: Hono's c.req.header builds a WHATWG Headers of every header on its first call
 * (undici's Headers: 2.8 % of a profile's busy time). Node keeps the first of a repeated Authorization, Content-Type
 * or Content-Length (as nginx does) and joins the others.
 */
export function requestHeader(c: StepContext<unknown>, name: string): string | undefined {
  const node = socketExchange(c);
  if (!node) return c.req.header(name);
  const value = node.incoming.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** An answer header set before the route answers; on Node straight onto the response (no WHATWG Headers per answer). */
export function answerHeader(c: StepContext<unknown>, name: string, value: string): void {
  const node = socketExchange(c);
  if (node) node.outgoing.setHeader(name, value);
  else c.header(name, value);
}

/**
 * What says the client went away: the request's signal, or on Node the response closing before it was written
 * (the request's signal there is one more AbortController per request, built on first read).
 */
export function clientGone(c: StepContext<unknown>): Cancellation {
  const node = socketExchange(c);
  if (!node) return c.req.raw.signal;
  const { outgoing } = node;
  return (onGone) => {
    const listener = () => {
      if (!outgoing.writableFinished) onGone();
    };
    outgoing.once('close', listener);
    return () => outgoing.off('close', listener);
  };
}
