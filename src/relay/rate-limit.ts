import { counterKey, type CounterHit, type CounterStore, type StoreErrorBehaviour } from './counter-store.js';
import type { LogSink } from './logger.js';
import type { RelayMetrics } from './metrics.js';
import type { RateLimitRule, Refusal } from './policy.js';

export type { StoreErrorBehaviour };

/** The part of the relay's runtime the limiter uses (the runtime itself is one). */
export interface Limiter {
  store: CounterStore;
  onStoreError: StoreErrorBehaviour;
  metrics: RelayMetrics;
  log: LogSink;
}

const WARN_EVERY_MS = 10_000;
const lastWarning = new WeakMap<Limiter, number>();

/**
 * Count one hit; over the limit -> 429 with Retry-After (whole seconds until the window ends). `count`: how the hit is
 * counted, default the store's increment (the pipeline passes one that also reads the idempotency record).
 */
export async function checkRateLimit(
  limiter: Limiter,
  rule: RateLimitRule | undefined,
  name: 'perPlayer' | 'perIp',
  subject: string,
  count?: (key: string, windowMs: number) => Promise<CounterHit>,
): Promise<Refusal | null> {
  if (!rule) return null;
  let hit: CounterHit;
  try {
    const key = counterKey(name, subject);
    const windowMs = rule.windowSeconds * 1000;
    hit = await (count ? count(key, windowMs) : limiter.store.increment(key, windowMs));
  } catch (error) {
    return storeFailed(limiter, name, error);
  }
  if (hit.count <= rule.limit) return null;
  limiter.metrics.limited(name);
  return {
    status: 429,
    message: `rate limit exceeded: policy rateLimits.${name} allows ${rule.limit} per ${rule.windowSeconds} s`,
    retryAfter: Math.max(1, Math.ceil(hit.resetInMs / 1000)),
  };
}

function storeFailed(limiter: Limiter, name: string, error: unknown): Refusal | null {
  const behaviour = limiter.onStoreError;
  limiter.metrics.storeError(behaviour);
  // One line per 10 s, not one per request: an outage would otherwise flood the log.
  const now = Date.now();
  if (now - (lastWarning.get(limiter) ?? 0) >= WARN_EVERY_MS) {
    lastWarning.set(limiter, now);
    const reason = error instanceof Error ? error.name : 'error';
    limiter.log({
      time: new Date(now).toISOString(),
      level: 'warn',
      msg: `rate-limit store failed (${reason}) on rateLimits.${name}: onStoreError is '${behaviour}', requests are ${behaviour === 'open' ? 'allowed without a limit' : 'refused with 503'}`,
    });
  }
  if (behaviour === 'open') return null;
  return {
    status: 503,
    message: `rate-limit store unavailable (rateLimits.${name}); try again shortly`,
    retryAfter: 1,
    reason: 'limits_unavailable',
  };
}
