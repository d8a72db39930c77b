// quest-points/relay: the operator relay in front of the Quest Points Service.
export { createRelay, type RelayOptions } from './app.js';
export { startRelay, DEFAULT_HOST, DEFAULT_PORT, type RunningServer, type StartRelayOptions } from './server.js';
export {
  signPlayerToken,
  DEFAULT_MAX_TOKEN_AGE_SECONDS,
  DEFAULT_TOKEN_TTL,
  SECRET_MIN_LENGTH,
  TOKEN_ALGORITHM,
  type SignOptions,
  type TokenSecrets,
} from './token.js';
export { PlayerClaimsSchema, type PlayerClaims, type PlayerRole, type VerifiedClaims } from './claims.js';
export type { Authenticate, AuthOptions } from './authenticate.js';
export { DEFAULT_JWKS_ALGORITHMS, JWKS_ALGORITHMS, type JwksAlgorithm, type JwksOptions } from './jwks.js';
export { DEFAULT_TOKEN_CACHE_SIZE } from './token-cache.js';
export {
  DEFAULT_POLICY,
  RelayPolicySchema,
  resolvePolicy,
  type EventRule,
  type RateLimitRule,
  type RelayPolicy,
  type ResolvedPolicy,
} from './policy.js';
export {
  createMemoryCounterStore,
  DEFAULT_MAX_KEYS,
  type CounterHit,
  type CounterStore,
  type MemoryCounterStoreOptions,
} from './counter-store.js';
export { createRedisCounterStore, type RedisCounterStoreOptions } from './redis-store.js';
export { rateLimitSubject, type ForwardedHeader } from './client-ip.js';
export type { StoreErrorBehaviour } from './rate-limit.js';
export { OPS_PATHS } from './ops.js';
export { ConfigError, type ConfigErrorCode, type ServerLimits, SERVER_LIMITS } from '../kit/index.js';
export type { LogRecord, LogSink } from './logger.js';
export type { UpstreamOptions } from './upstream.js';
export { KEY_SECRET_MIN_LENGTH, upstreamIdempotencyKey } from './keys.js';
