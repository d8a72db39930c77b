// When to send again: the one Retry-After parser and the one backoff of every face (the SDK's outbox and service
// worker, the relay's calls to the service and the Retry-After it passes on).

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Retry-After as whole seconds (rounded up), as the relay passes it on; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | undefined {
  const ms = retryAfterMs(value, now);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

/** Full jitter (AWS): uniform in [0, min(max, base * 2^attempt)], but never before Retry-After (`afterMs`). */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, afterMs = 0, random = Math.random): number {
  const cap = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.max(afterMs, Math.floor(random() * cap));
}
