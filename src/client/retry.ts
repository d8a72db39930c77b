/** What to do with one award after an answer. */
export type Verdict = 'ok' | 'rejected' | 'retry' | 'auth';

/**
 * 2xx acknowledged; 401 needs a fresh token; 408/409/429/5xx (and no answer at all) are retried with the same key;
 * 400/403/404/413/422 and any other 4xx are final refusals (dead letters). 1xx/3xx never reach us from fetch.
 */
export function classify(status: number): Verdict {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 401) return 'auth';
  if (status === 408 || status === 409 || status === 429 || status >= 500 || status < 200) return 'retry';
  return 'rejected';
}

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
