// quest-points/relay/node: the relay on Node (and Bun, Deno through their Node compatibility): its HTTP server with
// graceful shutdown, Prometheus metrics (prom-client) and shared rate limits in Redis (node-redis). prom-client and
// redis are optional peer dependencies, imported only when used. Everything of quest-points/relay is here too.
export * from '../index.js';
export { startRelay, DEFAULT_HOST, DEFAULT_PORT, type RunningServer, type StartRelayOptions } from './server.js';
export { DEFAULT_UPSTREAM_CONNECTIONS, LOG_LEVELS, type LogLevel } from './settings.js';
export { createRedisCounterStore, type RedisCounterStore, type RedisCounterStoreOptions } from './redis-store.js';
export { DEFAULT_REDIS_LEDGER_ENTRIES, LEDGER_STREAM_KEY, type RedisLedgerOptions } from './redis-ledger.js';
export { LEADERBOARD_KEY_TTL_MS } from './redis-leaderboard.js';
export { createPrometheusMetrics } from './metrics.js';
export { toNodeListener, type FetchHandler } from './listener.js';
export { type ServerLimits, SERVER_LIMITS } from '../../kit/server.js';
