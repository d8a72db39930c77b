import { ConfigError } from '../kit/errors.js';
import { createLru } from './lru.js';

/** What a failing counter store means: 'open' lets the request through, 'closed' refuses it with 503. */
export type StoreErrorBehaviour = 'open' | 'closed';

/**
 * Where rate-limit counters live. The relay only ever asks one question: "count one more hit on this key
 * in the current fixed window; how many so far, and when does the window end?". In-memory by default;
 * several relay instances share limits with createRedisCounterStore (Node, Bun, Deno) or
 * createDurableObjectCounterStore (Cloudflare Workers).
 */
export interface CounterStore {
  /**
   * Add one hit to `key` in its fixed window of `windowMs` (the window starts at the key's first hit).
   * Resolves to the hits counted in the window so far, this one included, and the ms until the window ends.
   * Rejects when the store cannot count (the relay then applies `onStoreError`).
   */
  increment(key: string, windowMs: number): Promise<CounterHit>;
  /** For GET /readyz: resolves when the store can count, rejects with the reason otherwise. */
  ready?(): Promise<void>;
  /** Release connections; called by startRelay's close() for a store the relay created. */
  close?(): Promise<void>;
}

/**
 * The hash tag of every shared-store key that belongs to one subject (a player's counter and records, an address's
 * counter): `{alice}`. Redis Cluster places a key by the text between its first `{` and the next `}`, so every key of
 * one operation (a player's hit and its records, read in one script) lands in one slot, and the key stays readable.
 * Injective (`%`, `{`, `}` escaped), so two subjects never share a counter; an empty subject still gets a tag.
 */
export const storeTag = (subject: string): string => `{${subject.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`) || '%'}}`;

/** A rate-limit counter's key: `qp:rl:perPlayer:{alice}` (its subject as the hash tag, storeTag). */
export const counterKey = (name: string, subject: string): string => `qp:rl:${name}:${storeTag(subject)}`;

/** One counted hit: the hits in the key's current window so far (this one included) and the ms until it ends. */
export interface CounterHit {
  count: number;
  resetInMs: number;
}

/** Options of createMemoryCounterStore. */
export interface MemoryCounterStoreOptions {
  /** The clock, in ms (tests pass a fake one); default Date.now. */
  now?: () => number;
  /**
   * Most keys held at once; default 200 000. When full, a key not counted lately is dropped (second chance, lru.ts; its next
   * hit starts a fresh window): memory stays bounded whatever the number of players or addresses.
   */
  maxKeys?: number;
}

/** The keys an in-memory counter store holds at most, by default (MemoryCounterStoreOptions `maxKeys`). */
export const DEFAULT_MAX_KEYS = 200_000;

/**
 * A CounterStore in this process's memory: right for one relay instance. A bounded map (lru.ts, second chance): O(1) per hit, an
 * expired window replaced when its key is met again or evicted, never a scan of the whole map.
 */
export function createMemoryCounterStore(options: MemoryCounterStoreOptions = {}): CounterStore {
  const now = options.now ?? Date.now;
  const max = options.maxKeys ?? DEFAULT_MAX_KEYS;
  if (!Number.isInteger(max) || max < 1) throw new ConfigError('maxKeys', 'invalid', `maxKeys must be a positive integer, got ${max}`);
  const windows = createLru<string, { count: number; resetAt: number }>(max);

  return {
    async increment(key, windowMs) {
      const at = now();
      let window = windows.get(key);
      if (!window || window.resetAt <= at) {
        window = { count: 0, resetAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetInMs: window.resetAt - at };
    },
  };
}
