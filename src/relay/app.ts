import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ConfigError } from '../kit/errors.js';
import { pathRefusal } from '../kit/http.js';
import { REQUEST_ID_HEADER } from '../protocol/index.js';
import { createAuth, type AuthOptions } from './authenticate.js';
import { batchRoute } from './batch.js';
import { clientIp, type ClientAddress, type ForwardedHeader } from './client-ip.js';
import {
  answerHeader,
  logEvent,
  redactFor,
  requestHeader,
  type RelayEnv,
  type RelayRuntime,
  type StepContext,
  type StepMiddleware,
} from './context.js';
import { createMemoryCounterStore, type CounterStore } from './counter-store.js';
import { createEconomy, type ValidateHook } from './economy/step.js';
import { createMemoryEconomyStore, type EconomyStore } from './economy/store.js';
import { adminRoutes } from './economy/admin.js';
import { createRelayLedger, type LedgerOptions, type RelayLedger } from './economy/ledger.js';
import { relayWebhooks, type WebhookOptions, type Webhooks } from './economy/webhooks.js';
import { originPolicy, SECURITY_HEADERS } from './hygiene.js';
import { createRelayLeaderboard, type LeaderboardOptions, type RelayLeaderboard } from './leaderboard/feed.js';
import { leaderboardRoutes } from './leaderboard/routes.js';
import { jsonLinesToStderr, levelOfStatus, type LogSink } from './logger.js';
import { noMetrics, relayMetrics, timedUpstream, type MetricsSink } from './metrics.js';
import { OPS_PATHS, operatorRoutes, type OpsState } from './ops.js';
import { createPlayerQueue } from './player-queue.js';
import { resolvePolicy, type RelayPolicy } from './policy.js';
import { checkRateLimit, type StoreErrorBehaviour } from './rate-limit.js';
import { fail } from './respond.js';
import { serviceRoutes } from './routes.js';
import { resolveIdempotency, type IdempotencyOptions } from './records.js';
import { createUpstream, type UpstreamOptions } from './upstream.js';
import { earlyRefusal } from './validate.js';

/** Below the SDK's default request timeout (10 s), so the SDK reads the relay's answer instead of timing out. */
const DEFAULT_DEADLINE_MS = 8000;

/** Token and key secrets, JWKS, authenticate() and the token cache: see AuthOptions (authenticate.ts). */
export interface RelayOptions extends AuthOptions {
  /** The Quest Points Service; url and apiKey default to QP_UPSTREAM_URL and QP_API_KEY. */
  upstream?: UpstreamOptions;
  /** The award policy, or the path of a JSON file holding it; default DEFAULT_POLICY. */
  policy?: RelayPolicy | string;
  /** Exact origins allowed to call from a browser, e.g. https://game.example.com. */
  corsOrigins?: string[];
  /**
   * Where rate-limit counters live; default this isolate's memory. Several instances share limits with a shared
   * store: `createRedisCounterStore` (quest-points/relay/node; startRelay's `redis`), or on Cloudflare Workers
   * `createDurableObjectCounterStore`.
   */
  rateLimitStore?: CounterStore;
  /** A failing counter store (Redis away): 'closed' (default) answers 503, 'open' lets requests through unlimited. */
  onStoreError?: StoreErrorBehaviour;
  /** When set, GET /metrics needs `Authorization: Bearer <metricsToken>`; default process.env.QP_METRICS_TOKEN. */
  metricsToken?: string;
  /** Where the relay counts what it does; default `noMetrics` (nothing counted, GET /metrics answers 404). */
  metrics?: MetricsSink;
  /** Structured records; default JSON lines on stderr. */
  logger?: LogSink;
  /** Awards of a batch in flight toward the service at once; default 8. */
  batchConcurrency?: number;
  /**
   * Each award request (single or batch) is answered within this many ms: awards not sent or not answered by then
   * come back `retry` (a single award 504). Default 8000, below the SDK's 10 s request timeout.
   */
  deadlineMs?: number;
  /** Proxies of your own in front of the relay: true = 1, or a count. Default false (socket address only). */
  trustProxy?: boolean | number;
  /** The header those proxies write: 'x-forwarded-for' (default) or 'forwarded' (RFC 7239). */
  forwardedHeader?: ForwardedHeader;
  /**
   * The connection's address, for per-IP limits. Default: read from what the runtime hands the fetch handler
   * (Node's socket, Bun's server, Deno's serve info, Cloudflare's CF-Connecting-IP); 'unknown' when none does.
   */
  clientAddress?: ClientAddress;
  /** Serve under a path, e.g. '/api/relay' for a Next.js route or a framework route that passes the full URL. */
  basePath?: string;
  /**
   * The idempotency record: an award the relay saw acknowledged is answered from it (without calling the service)
   * for `ttlMs` (default 30 days), the same key with another award is refused 422. Default off; startRelay and the
   * CLI turn it on with their Redis store (false: off there too). `store`: createMemoryRecordStore (one instance),
   * createRedisCounterStore(...).records (quest-points/relay/node) or createDurableObjectRecordStore (Workers).
   */
  idempotency?: IdempotencyOptions | false;
  /**
   * Where the economy rules (budgets, once-only events, cooldowns) and runtime bans live. Default: the rate-limit
   * store's own (`createRedisCounterStore(...).economy`: shared by every relay on that Redis), else this isolate's
   * memory (createMemoryEconomyStore: one instance). On Workers: createDurableObjectEconomyStore.
   */
  economyStore?: EconomyStore;
  /**
   * A server-authoritative check of each player's award (ask the game's own server), after the policy and before the
   * award is reserved and sent: `{ refuse: 'why' }` refuses it (422 `policy`); throwing or not answering by the
   * request's deadline answers it retry (503 `validate_unavailable`), never accepted unchecked. Admins skip it.
   */
  validate?: ValidateHook;
  /**
   * The ledger: every award's decision (forwarded, acknowledged, refused with its rule, failed) and every operator
   * action (reversed, banned, unbanned), read at GET /admin/ledger. Default off; startRelay and the CLI turn it on, in
   * Redis when they have it, else in memory (false: off there too). `store`: createMemoryLedgerStore (one
   * instance), createRedisCounterStore(...).ledger (quest-points/relay/node) or createDurableObjectLedgerStore.
   */
  ledger?: LedgerOptions | false;
  /**
   * Deliver every acknowledged award and every reversal in the ledger to your endpoints, signed per Standard Webhooks,
   * at least once (retries with backoff, then dead letters: GET /admin/webhooks/dead, POST /admin/webhooks/replay).
   * Needs the ledger. The delivery state (cursors, retries, dead letters) is kept in `webhooks.state`, by default the
   * rateLimitStore's when it has one (createRedisCounterStore's: a restart resumes), else this process's memory.
   */
  webhooks?: WebhookOptions;
  /**
   * A leaderboard per quest, moved by every award this relay sees acknowledged (and every reversal), served at
   * GET /group-quests/:questId/leaderboard. Needs the ledger. Default off; startRelay turns it on in its Redis
   * (false: off there too). `store`: createMemoryLeaderboardStore (one instance) or
   * createRedisCounterStore(...).leaderboard (quest-points/relay/node). docs/leaderboard.md.
   */
  leaderboard?: LeaderboardOptions | false;
}

/** The relay and what its Node server needs to stop it: mark it draining (/readyz 503). */
export interface BuiltRelay {
  app: Hono<RelayEnv>;
  /**
   * The award route without Hono's router and context, for the Node adapter's fast path (node/fast-award.ts): its
   * steps read only a StepContext, and answer with what that context's json() makes. Absent when a base path, the
   * operator's authenticate() (handed a whole Request) or clientAddress() is configured.
   */
  award?: AwardRoute;
  drain(): void;
  /** The relay's ledger (RelayOptions `ledger`), absent when off: subscribe to its entries, flush it on shutdown. */
  ledger?: RelayLedger;
  /** The webhook deliverer (RelayOptions `webhooks`), absent when off: stop it on shutdown. */
  webhooks?: Webhooks;
  /** The leaderboard (RelayOptions `leaderboard`), absent when off: await its settled() on shutdown, after the ledger's flush. */
  leaderboard?: RelayLeaderboard;
}

/** The award route as the fast path runs it (BuiltRelay `award`). */
export type AwardRoute = <A extends { readonly status: number }>(c: StepContext<A>) => Promise<A>;

/**
 * The relay as a Web-standard fetch handler (`relay.fetch(request)`): Node (startRelay), Bun, Deno, Cloudflare
 * Workers, or a route of the game's own server. It opens no connection and imports nothing from Node.
 */
export function createRelay(options: RelayOptions = {}): Hono<RelayEnv> {
  return buildRelay(options).app;
}

export function buildRelay(options: RelayOptions = {}): BuiltRelay {
  const env = globalThis.process?.env ?? {};
  if ((options as { redis?: unknown }).redis !== undefined || (!options.rateLimitStore && env.QP_REDIS_URL)) {
    // Silently counting in memory would multiply every limit by the number of instances.
    throw new ConfigError(
      'redis',
      'invalid',
      'createRelay opens no connection: pass rateLimitStore: await createRedisCounterStore({ url }) (quest-points/relay/node), or use startRelay({ redis })',
    );
  }
  const auth = createAuth(options, env, upstreamApiKey(options));
  const metrics = relayMetrics(options.metrics ?? noMetrics);
  const upstream = timedUpstream(createUpstream(options.upstream, auth.secrets), metrics);
  const policy = resolvePolicy(options.policy);
  const onStoreError = options.onStoreError ?? 'closed';
  if (onStoreError !== 'open' && onStoreError !== 'closed') {
    throw new ConfigError('onStoreError', 'invalid', `onStoreError must be 'open' or 'closed', got ${JSON.stringify(onStoreError)}`);
  }
  const log = options.logger ?? jsonLinesToStderr;
  const idempotency = resolveIdempotency(options.idempotency);
  const runtime: RelayRuntime = {
    policy,
    upstream,
    store: options.rateLimitStore ?? createMemoryCounterStore(),
    onStoreError,
    metrics,
    log,
    batchConcurrency: Math.max(1, Math.floor(options.batchConcurrency ?? 8)),
    deadlineMs: Math.max(1, options.deadlineMs ?? DEFAULT_DEADLINE_MS),
    upstreamKey: auth.upstreamKey,
    players: createPlayerQueue(),
    secrets: [upstreamApiKey(options), ...auth.secrets].filter((s): s is string => Boolean(s)),
    records: idempotency && { ...idempotency, failed: storeWarning(log, onStoreError) },
    economy: createEconomy(policy, economyStoreOf(options), options.validate),
    ledger: options.ledger ? createRelayLedger(options.ledger, log, metrics) : undefined,
  };
  // Started here: it delivers from the ledger in the background, on its own timers.
  runtime.leaderboard = options.leaderboard ? createRelayLeaderboard(options.leaderboard, runtime.ledger, log, runtime.upstream) : undefined;
  runtime.webhooks = options.webhooks ? relayWebhooks(options.webhooks, runtime.ledger, options.rateLimitStore, log, metrics) : undefined;
  const ops: OpsState = { draining: false };
  // Cloudflare's own user agent: there, work after the answer needs the request's waitUntil (a ledger's append).
  const onWorkers = globalThis.navigator?.userAgent === 'Cloudflare-Workers';
  const ipOptions = {
    trustProxy: options.trustProxy ?? false,
    forwardedHeader: options.forwardedHeader ?? 'x-forwarded-for',
    ...(options.clientAddress ? { clientAddress: options.clientAddress } : {}),
  } as const;
  const base = basePathOf(options.basePath);
  const quiet = new Set<string>(Object.values(OPS_PATHS).map((path) => base + path));

  const app = base ? new Hono<RelayEnv>().basePath(base) : new Hono<RelayEnv>();
  // Pre-composed: what every answer needs (request id, security headers, access log, metrics) in one middleware,
  // then, past the operator's probes, the guards every player route needs (origin and CORS, a well-formed path, the
  // per-IP limit) in another. Each still runs once per request, in this order; one hop each instead of seven.
  // The same steps make the award route's Node fast path (`award`, node/fast-award.ts): one definition of each.
  const opened = (c: StepContext<unknown>): number => {
    const started = performance.now();
    let id = requestHeader(c, REQUEST_ID_HEADER);
    if (!id || id.length > 64 || /[^\w\-=]/.test(id)) id = crypto.randomUUID();
    c.set('requestId', id);
    answerHeader(c, REQUEST_ID_HEADER, id);
    for (const [name, value] of SECURITY_HEADERS) answerHeader(c, name, value);
    metrics.inFlight(1);
    return started;
  };
  const closed = (c: StepContext<unknown>, started: number, status: number) => {
    metrics.request(status);
    // Probes every few seconds would drown the log.
    if (quiet.has(c.req.path) && status < 500) return;
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const refusal = c.get('refusal');
    if (!refusal) return logEvent(runtime, c, levelOfStatus(status), 'request', { status, ms });
    // The reason of every refusal, so an operator reads "origin ... is not in the relay's CORS allowlist" in the log.
    const { code, message } = refusal;
    logEvent(runtime, c, levelOfStatus(status), 'request', { status, ms, ...(code ? { code } : {}), reason: redactFor(runtime, c, message) });
  };
  app.use(async (c, next) => {
    const started = opened(c);
    try {
      await next();
    } finally {
      metrics.inFlight(-1);
    }
    closed(c, started, c.res.status);
    // On Workers the isolate may stop once the answer is sent: what this request decided is appended first (and moves the leaderboard).
    if (onWorkers && runtime.ledger) c.executionCtx.waitUntil(runtime.leaderboard?.settled() ?? runtime.ledger.flush());
  });
  app.route('/', operatorRoutes(runtime, ops, options.metricsToken ?? env.QP_METRICS_TOKEN));
  const origins = originPolicy(options.corsOrigins ?? [], ipOptions);
  const perIp = runtime.policy.rateLimits.perIp;
  /** An actual (not preflight) request's guards: path, per-IP limit; a refusal, or undefined to go on. */
  const guarded = async <A>(c: StepContext<A>): Promise<A | undefined> => {
    const malformed = pathRefusal(c.req.url);
    const refused = malformed ? earlyRefusal(malformed) : perIp ? await checkRateLimit(runtime, perIp, 'perIp', clientIp(c, ipOptions)) : null;
    return refused ? fail(c, refused) : undefined;
  };
  app.use(async (c, next) => {
    const denied = origins.refusal(c);
    if (denied) return fail(c, denied);
    const rest = async (): Promise<void> => {
      const refused = await guarded(c);
      if (refused) c.res = refused;
      else await next();
    };
    if (c.req.method === 'OPTIONS') return origins.preflight(c, rest);
    origins.headers(c);
    await rest();
  });
  app.use(auth.middleware);
  const service = serviceRoutes(runtime);
  app.route('/', service.app);
  app.route('/', batchRoute(runtime));
  app.route('/', adminRoutes(runtime));
  app.route('/', leaderboardRoutes(runtime));

  app.notFound((c) =>
    fail(c, { status: 404, message: redactFor(runtime, c, `no route ${c.req.method} ${new URL(c.req.url).pathname}`), code: 'route' }),
  );
  /** An error no step answered: logged, and 500 naming the request. */
  const unexpected = <A>(error: unknown, c: StepContext<A>): A => {
    logEvent(runtime, c, 'error', `unexpected: ${error instanceof Error ? error.message : String(error)}`, { status: 500 });
    return fail(c, { status: 500, message: `internal error (request ${c.get('requestId') ?? 'unknown'})` });
  };
  app.onError((error, c) => {
    // Hono's own middlewares (bearer auth on /metrics, never on the award route) answer by throwing a ready response.
    if (error instanceof HTTPException) {
      // Rebuilt through the context: it carries the headers every answer carries (security, CORS, request id).
      const response = error.getResponse();
      return c.newResponse(response.body, response);
    }
    return unexpected(error, c);
  });
  /**
   * POST /group-quests/:questId/points, every step above in the router's order, each once: request id and security
   * headers, origin (403) and CORS headers, path and per-IP limit, authentication, the body, the route; an error
   * answers as onError does; metrics and the access log last. The caller's context must be an actual POST to that
   * path (not a preflight) with no base path: the Node adapter's fast path (node/fast-award.ts) hands one.
   */
  const awardWith =
    (authenticate: StepMiddleware): AwardRoute =>
    async <A extends { readonly status: number }>(c: StepContext<A>): Promise<A> => {
      const started = opened(c);
      let answer: A;
      try {
        try {
          answer = await awardSteps(c, authenticate);
        } catch (error) {
          answer = unexpected(error, c);
        }
      } finally {
        metrics.inFlight(-1);
      }
      closed(c, started, answer.status);
      return answer;
    };
  const awardSteps = async <A>(c: StepContext<A>, authenticate: StepMiddleware): Promise<A> => {
    const denied = origins.refusal(c);
    if (denied) return fail(c, denied);
    origins.headers(c);
    const refused = await guarded(c);
    if (refused !== undefined) return refused;
    // Each middleware answers a refusal itself, or calls on: the route's answer is the last one's.
    let answer: A | undefined;
    let bodyRefused: A | undefined;
    const authRefused = await authenticate(c, async () => {
      const refusedBody = await service.pointsBody(c, async () => {
        answer = await service.points(c);
      });
      if (refusedBody !== undefined) bodyRefused = refusedBody;
    });
    const result = authRefused ?? bodyRefused ?? answer;
    // Every step answers or calls on, and the route always answers.
    if (result === undefined) throw new Error('the award route made no answer');
    return result;
  };
  // The bearer check is a step; the operator's authenticate() is handed a whole Request, so only Hono runs it.
  const bearer = auth.step;
  return {
    app,
    ...(base || !bearer || options.clientAddress ? {} : { award: awardWith(bearer) }),
    ...(runtime.ledger ? { ledger: runtime.ledger } : {}),
    ...(runtime.webhooks ? { webhooks: runtime.webhooks } : {}),
    ...(runtime.leaderboard ? { leaderboard: runtime.leaderboard } : {}),
    drain: () => {
      ops.draining = true;
    },
  };
}

/** '' or '/a/b': one leading slash, none trailing. */
function basePathOf(path: string | undefined): string {
  if (path === undefined || path === '' || path === '/') return '';
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(path)) {
    throw new ConfigError('basePath', 'invalid', `basePath must be a URL path starting with "/", got ${JSON.stringify(path)}`);
  }
  return path.replace(/\/+$/, '');
}

/** RelayOptions `economyStore`, else the rate-limit store's own (Redis), else memory. */
function economyStoreOf(options: RelayOptions): EconomyStore {
  if (options.economyStore) return options.economyStore;
  const shared = (options.rateLimitStore as { economy?: EconomyStore } | undefined)?.economy;
  return shared ?? createMemoryEconomyStore();
}

const upstreamApiKey = (options: RelayOptions) => options.upstream?.apiKey ?? globalThis.process?.env?.QP_API_KEY;

/**
 * A failing record store follows onStoreError (pipeline.ts): 'open' sends and acknowledges awards unrecorded (the
 * service's own idempotency still holds), 'closed' answers them retry. Said in the log at most once per 10 s.
 */
function storeWarning(log: LogSink, behaviour: StoreErrorBehaviour): (operation: 'read' | 'write', error: unknown) => undefined {
  let last = 0;
  return (operation, error) => {
    const now = Date.now();
    if (now - last < 10_000) return undefined;
    last = now;
    const reason = error instanceof Error ? error.name : 'error';
    log({
      time: new Date(now).toISOString(),
      level: 'warn',
      msg: `idempotency record store failed to ${operation} (${reason}): onStoreError is '${behaviour}', awards are ${behaviour === 'open' ? 'sent and acknowledged unrecorded' : 'answered retry (503 records_unavailable)'}`,
    });
    return undefined;
  };
}
