import type { CounterStore } from './counter-store.js';
import type { RateLimitRule, Refusal } from './policy.js';

/** Count one hit; over the limit -> 429 with Retry-After (whole seconds until the window ends). */
export async function checkRateLimit(
  store: CounterStore,
  rule: RateLimitRule | undefined,
  name: 'perPlayer' | 'perIp',
  subject: string,
): Promise<Refusal | null> {
  if (!rule) return null;
  const hit = await store.increment(`qp:rl:${name}:${subject}`, rule.windowSeconds * 1000);
  if (hit.count <= rule.limit) return null;
  return {
    status: 429,
    message: `rate limit exceeded: policy rateLimits.${name} allows ${rule.limit} per ${rule.windowSeconds} s`,
    retryAfter: Math.max(1, Math.ceil(hit.resetInMs / 1000)),
  };
}
