import { createStore, delMany, entries, get, setMany, update, type UseStore } from 'idb-keyval';
import type { StorageDegradedReason } from './types.js';

/** The few operations the SDK needs from a key-value store; IndexedDB (idb-keyval) or memory. */
export interface KV<T> {
  get(key: string): Promise<T | undefined>;
  all(): Promise<T[]>;
  setMany(pairs: [string, T][]): Promise<void>;
  delMany(keys: string[]): Promise<void>;
  /** Atomic read-modify-write of one key (one readwrite transaction). */
  update(key: string, fn: (old: T | undefined) => T): Promise<void>;
}

export function memoryKV<T>(): KV<T> {
  const map = new Map<string, T>();
  return {
    get: async (key) => map.get(key),
    all: async () => [...map.values()],
    setMany: async (pairs) => pairs.forEach(([k, v]) => map.set(k, v)),
    delMany: async (keys) => keys.forEach((k) => map.delete(k)),
    update: async (key, fn) => void map.set(key, fn(map.get(key))),
  };
}

/**
 * One database per store (idb-keyval opens each database with a single object store). After a failure the
 * connection is dropped, so the next operation (recover() on the poll) reopens it: Safari closes connections.
 */
export function idbKV<T>(dbName: string): KV<T> {
  let store: UseStore | undefined;
  let opened = false;
  async function run<R>(op: (s: UseStore) => Promise<R>): Promise<R> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      // A first open that never answers means another connection blocks the database.
      const result = await Promise.race([
        op((store ??= createStore(dbName, 'kv'))),
        new Promise<never>((_, reject) => opened || (timer = setTimeout(reject, 5000, Object.assign(new Error('blocked'), { name: 'BlockedError' })))),
      ]);
      opened = true;
      return result;
    } catch (error) {
      store = undefined;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
  return {
    get: (key) => run((s) => get<T>(key, s)),
    all: () => run(async (s) => (await entries<string, T>(s)).map(([, v]) => v)),
    setMany: (pairs) => run((s) => setMany(pairs, s)),
    delMany: (keys) => run((s) => delMany(keys, s)),
    update: (key, fn) => run((s) => update<T>(key, (old) => fn(old), s)),
  };
}

export function storageFailure(error: unknown): StorageDegradedReason {
  const { name = '', message = '' } = (error ?? {}) as Error;
  if (name === 'QuotaExceededError' || /quota/i.test(message)) return 'quota';
  if (name === 'BlockedError' || name === 'VersionError') return 'blocked';
  if (name === 'InvalidStateError' || /clos/i.test(message)) return 'connection-lost';
  return 'error';
}
