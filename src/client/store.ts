import { delMany, get, getMany, keys, promisifyRequest, setMany, update, values, type UseStore } from 'idb-keyval';
import { readable, type Newer } from './format.js';
import type { IndexedDBFactory } from './options.js';
import type { StorageDegradedReason } from './types.js';

/** The few operations the SDK needs from a key-value store: idb-keyval over IndexedDB, or memory. */
export interface KV<T> {
  get(key: string): Promise<T | undefined>;
  all(): Promise<T[]>;
  /** The keys only: no value is read. */
  keys(): Promise<string[]>;
  /** Each key's value, undefined where there is none (one transaction). */
  getMany(keys: string[]): Promise<(T | undefined)[]>;
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
    keys: async () => [...map.keys()],
    getMany: async (keys) => keys.map((key) => map.get(key)),
    setMany: async (pairs) => {
      for (const [k, v] of pairs) map.set(k, v);
    },
    delMany: async (keys) => {
      for (const k of keys) map.delete(k);
    },
    update: async (key, fn) => void map.set(key, fn(map.get(key))),
  };
}

const STORE = 'kv';
const OPEN_BLOCKED_MS = 5000;
/** Reopens after a connection the browser closed, before an operation fails (and the outbox degrades to memory). */
const REOPENS = 2;

/**
 * The connection was lost, not the operation refused: InvalidStateError (the database is closed or closing), WebKit's
 * UnknownError "Connection to Indexed Database server lost", or a transaction aborted because the connection closed
 * under it. Reopening and doing it again is safe: an aborted transaction applied nothing, and every write here is a
 * put or a delete of whole records.
 */
function connectionLost(error: unknown, closed: boolean): boolean {
  const { name = '', message = '' } = (error ?? {}) as Error;
  return (
    name === 'InvalidStateError' || /connection.*lost|server lost/i.test(message) || (closed && (name === 'AbortError' || name === 'UnknownError'))
  );
}

/**
 * idb-keyval's store with what an outbox needs on top: a first open that answers neither way within 5 s means
 * another connection blocks the database (idb-keyval would wait forever); a connection the browser closed (Safari
 * and WebKit do: "Connection to Indexed Database server lost"; the `close` event; InvalidStateError on a closed
 * database) is reopened and the operation done again, up to REOPENS times, before it fails; any other failure drops
 * the connection so the next operation reopens it; a `versionchange` from another connection closes this one rather
 * than block it; and writes issued at once ask for the commit now (`committing`) rather than at auto-commit, because a
 * page torn down meanwhile drops the transaction. The layout is createStore(dbName, 'kv'): one database per store, as
 * earlier versions wrote it.
 */
function openStores(dbName: string, factory?: IndexedDBFactory): { plain: UseStore; committing: UseStore } {
  let db: Promise<IDBDatabase> | undefined;
  /** The current connection was closed by the browser (its `close` event). */
  let closed = false;
  const open = () => {
    db ??= new Promise<IDBDatabase>((resolve, reject) => {
      closed = false;
      const request = (factory ?? indexedDB).open(dbName) as IDBOpenDBRequest;
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      const timer = setTimeout(
        () => reject(Object.assign(new Error(`IndexedDB open blocked for ${OPEN_BLOCKED_MS / 1000} s`), { name: 'BlockedError' })),
        OPEN_BLOCKED_MS,
      );
      promisifyRequest(request).then(
        (opened) => {
          clearTimeout(timer);
          const drop = () => {
            closed = true;
            db = undefined;
          };
          opened.onclose = drop;
          opened.onversionchange = () => {
            opened.close();
            drop();
          };
          resolve(opened);
        },
        (error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
    return db;
  };
  const use =
    (commit: boolean): UseStore =>
    async (mode, callback) => {
      for (let reopens = 0; ; reopens++) {
        const connection = open();
        try {
          const tx = (await connection).transaction(STORE, mode);
          const result = callback(tx.objectStore(STORE));
          if (commit) tx.commit?.();
          return await result;
        } catch (error) {
          const lost = connectionLost(error, closed);
          // Only this operation's connection: a newer one, opened meanwhile by another operation, stays.
          if (db === connection) db = undefined;
          if (!lost || reopens >= REOPENS) throw error;
        }
      }
    };
  return { plain: use(false), committing: use(true) };
}

/**
 * `factory`: the IndexedDB to use (default the page's; a Storage Access handle's for the unpartitioned one). Records are
 * read through the stored-format contract (format.ts): one of a newer format reads as none (it stays in the store,
 * never rewritten; its key is still listed) and `newer` hears of it (format.ts reporter).
 */
export function idbKV<T>(dbName: string, factory?: IndexedDBFactory, newer?: Newer): KV<T> {
  const { plain, committing } = openStores(dbName, factory);
  const read = (record: T | undefined) => readable(record, newer);
  return {
    // Reads commit at once too (one request each): a read left to auto-commit holds the store until the page's task
    // ends, and a write issued in that task (awards in the continuation of pending()) could not start meanwhile.
    get: async (key) => read(await get<T>(key, committing)),
    all: async () => (await values<T>(committing)).flatMap((record) => read(record) ?? []),
    keys: () => keys<string>(committing),
    getMany: async (keys) => (await getMany<T>(keys, committing)).map(read),
    setMany: (pairs) => setMany(pairs, committing),
    delMany: (keys) => delMany(keys, committing),
    // Not committing: update's put is issued later, in a request callback. A newer record stays as it is.
    update: (key, fn) =>
      update<T>(
        key,
        (old) => {
          const record = read(old);
          return old && !record ? old : fn(record);
        },
        plain,
      ),
  };
}

export function storageFailure(error: unknown): StorageDegradedReason {
  const { name = '', message = '' } = (error ?? {}) as Error;
  if (name === 'QuotaExceededError' || /quota/i.test(message)) return 'quota';
  if (name === 'BlockedError' || name === 'VersionError') return 'blocked';
  if (name === 'SecurityError') return 'denied';
  if (name === 'InvalidStateError' || /clos/i.test(message)) return 'connection-lost';
  return 'error';
}
