// quest-points/relay: the operator relay in front of the Quest Points Service, as a Web-standard fetch handler for
// any runtime (Node, Bun, Deno, Cloudflare Workers, a framework's route). Imports nothing from Node: Node's server,
// Prometheus and Redis are in quest-points/relay/node (src/relay/node/).
export { createRelay, type RelayOptions } from './app.js';
export type { RelayEnv, StepRaw } from './context.js';
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
  type RateLimits,
  type Refusal,
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
export {
  createDurableObjectCounterStore,
  RateLimitCounter,
  type DurableObjectCounterStoreOptions,
  type DurableObjectNamespaceLike,
} from './durable-object-store.js';
export {
  createDurableObjectRecordStore,
  IdempotencyRecords,
  type DurableObjectRecordStoreOptions,
  type DurableObjectStorageLike,
} from './durable-object-records.js';
export { noMetrics, type AwardLabel, type MetricsSink, type MetricsText, type WebhookResult } from './metrics.js';
export { connectionAddress, rateLimitSubject, type ClientAddress, type ForwardedHeader } from './client-ip.js';
export type { StoreErrorBehaviour } from './rate-limit.js';
export { OPS_PATHS } from './ops.js';
export {
  createMemoryRecordStore,
  DEFAULT_RECORD_TTL_MS,
  type IdempotencyOptions,
  type IdempotencyRecordStore,
  type MemoryRecordStoreOptions,
} from './records.js';
export { createMemoryLedgerStore, DEFAULT_MEMORY_LEDGER_ENTRIES, type MemoryLedgerOptions } from './economy/memory-ledger.js';
export { DEFAULT_LEDGER_RETENTION_MS } from './economy/query.js';
export { createDurableObjectLedgerStore, LedgerObject, type DurableObjectLedgerOptions } from './economy/durable-object-ledger.js';
export type { LedgerListener, LedgerOptions, RelayLedger } from './economy/ledger.js';
export type { LeaderboardOptions, RelayLeaderboard } from './leaderboard/feed.js';
export type { LeaderboardReconcileOptions, ReconcileReport, Reconciler } from './leaderboard/reconcile.js';
export {
  createMemoryLeaderboardStore,
  type LeaderboardAround,
  type LeaderboardGroup,
  type LeaderboardReconcileStore,
  type LeaderboardRow,
  type LeaderboardStore,
  type MemoryLeaderboardOptions,
} from './leaderboard/store.js';
export { LEADERBOARD_MAX_AGE_S, MAX_LEADERBOARD_AROUND, MAX_LEADERBOARD_TOP } from './leaderboard/routes.js';
export type { LedgerDraft, LedgerEntry, LedgerOutcome, LedgerQuery, LedgerStore } from './economy/contract.js';
export {
  createMemoryWebhookState,
  DEFAULT_MAX_DEAD,
  webhookId,
  webhookPayload,
  type DeadDelivery,
  type MemoryWebhookStateOptions,
  type PendingDelivery,
  type ReplaySelection,
  type WebhookEndpoint,
  type WebhookEventType,
  type WebhookLedger,
  type WebhookOptions,
  type WebhookPayload,
  type Webhooks,
  type WebhookStateStore,
} from './economy/webhooks.js';
export { ConfigError, type ConfigErrorCode } from '../kit/errors.js';
export type { LogRecord, LogSink } from './logger.js';
export type { UpstreamAnswer, UpstreamExchange, UpstreamOptions, UpstreamTransport } from './upstream.js';
export { KEY_SECRET_MIN_LENGTH, upstreamIdempotencyKey } from './keys.js';
export {
  createMemoryEconomyStore,
  type BudgetCharge,
  type EconomyStore,
  type MemoryEconomyStoreOptions,
  type Reservation,
  type ReserveAnswer,
} from './economy/store.js';
export type { ValidateAward, ValidateContext, ValidateHook } from './economy/step.js';
export type { BanList } from './economy/contract.js';
export { CALENDAR_WINDOWS, type BudgetRule, type CalendarWindow, type CampaignRule } from './economy/rules.js';
export {
  createDurableObjectEconomyStore,
  EconomyRules,
  type DurableObjectEconomyStoreOptions,
  type EconomyStorageLike,
} from './economy/durable-object.js';
