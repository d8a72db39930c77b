/**
 * Where rate-limit counters live. The relay only ever asks one question: "count one more hit on this key
 * in the current fixed window; how many so far, and when does the window end?". In-memory by default;
 * several relay instances share limits by implementing this over Redis (INCR + PEXPIRE NX, see docs/relay.md).
 */
export interface CounterStore {
  /**
   * Add one hit to `key` in its fixed window of `windowMs` (the window starts at the key's first hit).
   * Resolves to the hits counted in the window so far, this one included, and the ms until the window ends.
   */
  increment(key: string, windowMs: number): Promise<CounterHit>;
}

export interface CounterHit {
  count: number;
  resetInMs: number;
}

export interface MemoryCounterStoreOptions {
  now?: () => number;
  /** Drop expired windows once the map holds this many keys; default 10 000. */
  sweepAt?: number;
}

/** A CounterStore in this process's memory: right for one relay instance. */
export function createMemoryCounterStore(options: MemoryCounterStoreOptions = {}): CounterStore {
  const now = options.now ?? Date.now;
  const sweepAt = options.sweepAt ?? 10_000;
  const windows = new Map<string, { count: number; resetAt: number }>();

  // Expired windows are only swept when the map grows, so memory stays bounded by live keys.
  const sweep = (at: number) => {
    for (const [key, window] of windows) if (window.resetAt <= at) windows.delete(key);
  };

  return {
    async increment(key, windowMs) {
      const at = now();
      let window = windows.get(key);
      if (!window || window.resetAt <= at) {
        if (windows.size >= sweepAt) sweep(at);
        window = { count: 0, resetAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetInMs: window.resetAt - at };
    },
  };
}
