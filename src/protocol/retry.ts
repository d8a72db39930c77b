// When to send again: the one Retry-After parser and the one backoff of every face (the SDK's outbox and service
// worker, the relay's calls to the service and the Retry-After it passes on).

/**
 * The longest wait any face schedules: 2^31-1 ms (about 24.8 days), the most setTimeout takes. A longer delay
 * overflows it and fires at once: a 429 with `Retry-After: 3456000` (40 days, a valid monthly window) became a tight
 * loop, 1,478 sends in 2 s from one tab. Every Retry-After read here is clamped to it.
 */
export const MAX_DELAY_MS = 2 ** 31 - 1;

/** A wait in [0, MAX_DELAY_MS]: the clamp every Retry-After goes through. */
export const clampDelay = (ms: number): number => Math.min(MAX_DELAY_MS, Math.max(0, ms));

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP date, clamped to [0, MAX_DELAY_MS]; undefined when absent or
 * unreadable.
 */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  // Number() of a run of digits too long for a double is Infinity: a wait past any timer, clamped like the others.
  const ms = Number.isNaN(seconds) ? Date.parse(value) - now : seconds * 1000;
  return Number.isNaN(ms) ? undefined : clampDelay(ms);
}

/**
 * Retry-After as whole seconds (rounded up), as the relay passes it on: at most MAX_DELAY_MS (rounded down to a
 * second), so what it passes on never overflows a client's timer either; undefined when absent or unreadable.
 */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | undefined {
  const ms = retryAfterMs(value, now);
  return ms === undefined ? undefined : Math.min(Math.ceil(ms / 1000), Math.floor(MAX_DELAY_MS / 1000));
}

/**
 * Full jitter (AWS): uniform in [0, min(max, base * 2^attempt)], but never before Retry-After (`afterMs`), and never
 * past `maxMs` (nor MAX_DELAY_MS): an award under a long window (a monthly per-player limit) waits, asking again
 * every `maxMs`, rather than being scheduled weeks ahead (a page is not open that long; the next page asks anyway).
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, afterMs = 0, random = Math.random): number {
  const cap = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return clampDelay(Math.min(maxMs, Math.max(afterMs, Math.floor(random() * cap))));
}
