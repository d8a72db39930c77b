import { statusVerdict, type Verdict } from '../protocol/status.js';

export type { Verdict };

/**
 * What to do with one award after an answer: the protocol's one status table (protocol/status.ts), the same the
 * relay answers its single route and its batch with. 1xx/3xx never reach us from fetch.
 */
export const classify = (status: number): Verdict => statusVerdict(status);

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Full jitter (AWS): uniform in [0, min(max, base * 2^attempt)], but never before Retry-After. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, afterMs = 0, random = Math.random): number {
  const cap = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.max(afterMs, Math.floor(random() * cap));
}
