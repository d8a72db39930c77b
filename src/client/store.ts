import type { StorageDegradedReason } from './types.js';

/** The few operations the SDK needs from a key-value store; IndexedDB or memory. */
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

const STORE = 'kv';
const blocked = () => Object.assign(new Error('IndexedDB open blocked for 5 s'), { name: 'BlockedError' });

/**
 * One database per store, holding one object store 'kv' (the layout idb-keyval's createStore(db, 'kv') used, so
 * outboxes written by earlier versions are read as they are). Every operation is one transaction and resolves when
 * it is complete, so a resolved setMany is committed. After a failure the connection is dropped and the next
 * operation (recover() on the poll) reopens it: Safari closes connections. A first open that answers neither way
 * within 5 s means another connection blocks the database.
 */
export function idbKV<T>(dbName: string): KV<T> {
  let db: Promise<IDBDatabase> | undefined;
  const open = () =>
    (db ??= new Promise((resolve, reject) => {
      const request = indexedDB.open(dbName);
      const timer = setTimeout(() => reject(blocked()), 5000);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => {
        clearTimeout(timer);
        request.result.onclose = () => (db = undefined);
        resolve(request.result);
      };
      request.onerror = () => (clearTimeout(timer), reject(request.error));
    }));

  /** Runs fn in one transaction; resolves with the result of the request fn returns once the transaction commits. */
  async function run<R>(mode: IDBTransactionMode, fn: (store: IDBObjectStore) => IDBRequest<R> | void, commit?: boolean): Promise<R> {
    try {
      const tx = (await open()).transaction(STORE, mode);
      const request = fn(tx.objectStore(STORE));
      // Writes issued at once ask for the commit now rather than at auto-commit: a page torn down meanwhile drops
      // the transaction. (Not update(): its put is issued later, in a request callback.)
      if (commit) tx.commit?.();
      return await new Promise<R>((resolve, reject) => {
        tx.oncomplete = () => resolve(request?.result as R);
        // A failed request aborts the transaction; tx.error says why (QuotaExceededError, ...).
        tx.onabort = () => reject(tx.error);
      });
    } catch (error) {
      db = undefined;
      throw error;
    }
  }

  return {
    get: (key) => run('readonly', (s) => s.get(key)),
    all: () => run('readonly', (s) => s.getAll()),
    setMany: (pairs) => run('readwrite', (s) => pairs.forEach(([k, v]) => s.put(v, k)), true),
    delMany: (keys) => run('readwrite', (s) => keys.forEach((k) => s.delete(k)), true),
    update: (key, fn) =>
      run('readwrite', (s) => {
        const request = s.get(key);
        request.onsuccess = () => s.put(fn(request.result), key);
      }),
  };
}

export function storageFailure(error: unknown): StorageDegradedReason {
  const { name = '', message = '' } = (error ?? {}) as Error;
  if (name === 'QuotaExceededError' || /quota/i.test(message)) return 'quota';
  if (name === 'BlockedError' || name === 'VersionError') return 'blocked';
  if (name === 'InvalidStateError' || /clos/i.test(message)) return 'connection-lost';
  return 'error';
}
