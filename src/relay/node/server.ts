import { isConfigError } from '../../kit/errors.js';
import { startNodeServer, takeLimits, type RunningServer, type ServerLimits } from '../../kit/server.js';
import { buildRelay, type RelayOptions } from '../app.js';
import { jsonLinesToStderr } from '../logger.js';
import type { MetricsSink } from '../metrics.js';
import type { IdempotencyRecordStore } from '../records.js';
import type { LedgerStore } from '../economy/contract.js';
import { createMemoryLedgerStore } from '../economy/memory-ledger.js';
import type { LeaderboardReconcileOptions } from '../leaderboard/reconcile.js';
import { createMemoryLeaderboardStore, type LeaderboardStore } from '../leaderboard/store.js';
import type { LogLevel } from './settings.js';
import { fastAwardHandler } from './fast-award.js';
import { createPrometheusMetrics } from './metrics.js';
import { importPeer } from './peer.js';
import { createRedisCounterStore } from './redis-store.js';

export type { RunningServer };

/** The address startRelay binds by default: loopback only (put it behind your proxy, or pass host '0.0.0.0'). */
export const DEFAULT_HOST = '127.0.0.1';
/** The port startRelay listens on by default. */
export const DEFAULT_PORT = 8788;

/** startRelay's options: the relay's own (RelayOptions), the HTTP server's limits, and the Node adapters'. */
export type StartRelayOptions = RelayOptions &
  ServerLimits & {
    /** Address to bind; default DEFAULT_HOST (127.0.0.1). */
    host?: string;
    /** Port to listen on, 0 for a free one; default DEFAULT_PORT (8788). */
    port?: number;
    /**
     * Share rate limits between instances: a Redis URL, redis://host:6379 for one server or
     * redis+cluster://host1:6379,host2:6379 for a Redis Cluster (rediss:// forms for TLS); default process.env.QP_REDIS_URL.
     * Needs the `redis` package (an optional peer dependency). Ignored when `rateLimitStore` is given.
     */
    redis?: string;
    /**
     * Where the relay counts what it does. Default: Prometheus (prom-client) when that package is installed, served
     * at GET /metrics; without it, nothing is counted and /metrics answers 404 (said once in the log at start).
     */
    metrics?: MetricsSink;
    /** How long the default idempotency record (in the shared store) keeps an award; default 30 days. */
    idempotencyTtlMs?: number;
    /** How long the default ledger (in Redis, else in memory) keeps an entry; default 30 days. */
    ledgerRetentionMs?: number;
    /** Keep-alive connections to the service at once (undici pool); default QP_UPSTREAM_CONNECTIONS or 128. */
    upstreamConnections?: number;
    /** Lowest level of the JSON log written to stderr when no `logger` is given; default QP_LOG_LEVEL or 'info'. */
    logLevel?: LogLevel;
    /**
     * close(): /readyz answers 503 and requests are still served this long before the relay stops accepting
     * connections, so a load balancer's health check takes it out of rotation first; default 0. Closing a listening
     * socket resets the connections still in its accept queue: a balancer that sent a request on one cannot tell
     * whether the relay got it, and does not resend a POST.
     */
    drainDelayMs?: number;
    /**
     * The award route (POST /group-quests/:questId/points) served without Hono's router and a WHATWG Request and
     * Response per call (node/fast-award.ts): the same steps, the same answers; default true. false: every request
     * through Hono.
     */
    fastPath?: boolean;
    /**
     * Reconcile the leaderboard startRelay keeps (in Redis, else memory) with the service: LeaderboardOptions
     * `reconcile`. Off by default. Ignored when RelayOptions `leaderboard` is given (put `reconcile` there).
     */
    reconcile?: LeaderboardReconcileOptions;
  };

/**
 * Serve the relay on Node (and on Bun or Deno through their node:http): port 0 picks a free port. The idempotency
 * record is on by default when a shared store is configured (`redis`, QP_REDIS_URL, or a `rateLimitStore` carrying
 * `records`, as createRedisCounterStore's does), in that store, for 30 days; `idempotency: false` turns it off. The
 * ledger is on by default: in that shared store's stream, else in memory (one instance), 30 days; `ledger: false`
 * turns it off. The leaderboard follows the ledger, in the same store (Redis sorted sets, else memory); `leaderboard:
 * false` turns it off. Resolves once
 * listening. close() is graceful: /readyz turns 503 (for drainDelayMs, requests are still served), no new connections
 * are accepted, in-flight requests finish
 * (up to shutdownGraceMs), keep-alive connections are closed, then the Redis connection the relay opened is released.
 */
export async function startRelay(options: StartRelayOptions = {}): Promise<RunningServer> {
  const [
    limits,
    {
      host = DEFAULT_HOST,
      port = DEFAULT_PORT,
      redis,
      metrics,
      upstreamConnections,
      logLevel,
      drainDelayMs = 0,
      fastPath = true,
      idempotency,
      idempotencyTtlMs,
      ledger,
      ledgerRetentionMs,
      reconcile,
      ...relayOptions
    },
  ] = takeLimits(options);
  // Node's adapters, unless the caller brought its own: pino for the log, an undici pool to the service. Both are
  // optional peers (a browser install of quest-points carries neither): without them, JSON lines and fetch.
  const missing: string[] = [];
  const logModule = relayOptions.logger
    ? undefined
    : await optionalPeer('pino', () => import('./log.js'), 'The asynchronous access log', 'each log line is written to stderr as it comes', missing);
  const pinoLog = logModule?.createPinoSink({ level: logLevel });
  const log = relayOptions.logger ?? pinoLog?.sink ?? jsonLinesToStderr;
  const ownTransport = relayOptions.upstream?.fetch || relayOptions.upstream?.transport;
  const poolModule = ownTransport
    ? undefined
    : await optionalPeer('undici', () => import('./pool.js'), 'The upstream connection pool', 'the service is reached with fetch', missing);
  const pool = poolModule?.poolAvailable ? poolModule.createPoolTransport({ connections: upstreamConnections }) : undefined;
  // prom-client is the third optional peer: without it /metrics answers 404.
  const sink =
    metrics ?? (await optionalPeer('prom-client', createPrometheusMetrics, 'Prometheus metrics (GET /metrics)', 'GET /metrics answers 404', missing));
  const warn = (msg: string) => log({ time: new Date().toISOString(), level: 'warn', msg });
  for (const msg of missing) warn(msg);
  const redisUrl = relayOptions.rateLimitStore ? undefined : (redis ?? process.env.QP_REDIS_URL);
  let ownStore: Awaited<ReturnType<typeof createRedisCounterStore>> | undefined;
  const dispose = async () => {
    await Promise.all([ownStore?.close?.(), pool?.close(), pinoLog?.flush()]);
  };
  let relay: ReturnType<typeof buildRelay>;
  let running: RunningServer;
  try {
    const retention = ledgerRetentionMs === undefined ? {} : { retentionMs: ledgerRetentionMs };
    ownStore = redisUrl ? await createRedisCounterStore({ url: redisUrl, onConnectionError: warn, ledger: retention }) : undefined;
    const shared = (ownStore ?? relayOptions.rateLimitStore) as
      | { records?: IdempotencyRecordStore; ledger?: LedgerStore; leaderboard?: LeaderboardStore }
      | undefined;
    const ttl = idempotencyTtlMs === undefined ? {} : { ttlMs: idempotencyTtlMs };
    const records = idempotency === false ? undefined : (idempotency ?? (shared?.records ? { store: shared.records, ...ttl } : undefined));
    // The ledger: in the shared store (Redis) when there is one, else in this process's memory (bounded).
    const ledgerOn = ledger === false ? undefined : (ledger ?? { store: shared?.ledger ?? createMemoryLedgerStore(retention), ...retention });
    // The leaderboard follows the ledger: on with it, beside it (Redis's sorted sets, else memory); overridden by RelayOptions.
    const board = ledgerOn ? { store: shared?.leaderboard ?? createMemoryLeaderboardStore(), ...(reconcile ? { reconcile } : {}) } : undefined;
    relay = buildRelay({
      ...(records ? { idempotency: records } : {}),
      ...(ledgerOn ? { ledger: ledgerOn } : {}),
      ...(board ? { leaderboard: board } : {}),
      ...relayOptions,
      ...(pool ? { upstream: { ...relayOptions.upstream, transport: pool.transport } } : {}),
      logger: log,
      ...(ownStore ? { rateLimitStore: ownStore } : {}),
      ...(sink ? { metrics: sink } : {}),
    });
    const handle = fastPath && relay.award ? fastAwardHandler(relay.award) : undefined;
    running = await startNodeServer({ fetch: relay.app.fetch, host, port, ...limits, ...(handle ? { handle } : {}) });
  } catch (error) {
    // A relay that refuses to start leaves no connection behind.
    await dispose();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    ...running,
    close: () =>
      (closing ??= (async () => {
        relay.drain();
        if (drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, drainDelayMs));
        try {
          await running.close();
          // What the last requests decided, into the ledger before its connection goes.
          await relay.ledger?.flush();
          // And the leaderboard's moves those entries made.
          await relay.leaderboard?.settled();
          // Reconciliation stopped and its leases let go: another relay takes the next pass (from the cursor).
          await relay.leaderboard?.reconciler?.stop();
          // Attempts in flight answered (or timed out) and the lease let go: another relay on the same Redis takes over.
          await relay.webhooks?.stop();
        } finally {
          await dispose();
        }
      })()),
  };
}

/**
 * An optional peer's module, or undefined when the package is not installed: one warning (into `missing`) names what
 * to install and what the relay does meanwhile. Any other failure to load it is thrown.
 */
async function optionalPeer<T>(
  name: string,
  load: () => Promise<T>,
  neededFor: string,
  meanwhile: string,
  missing: string[],
): Promise<T | undefined> {
  try {
    return await importPeer(name, load, neededFor);
  } catch (error) {
    if (!isConfigError(error)) throw error;
    missing.push(`${error.message}; until then ${meanwhile}`);
    return undefined;
  }
}
