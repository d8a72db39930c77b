import type { PendingAward } from './types.js';
import { uuid } from './uuid.js';

export type Rescue = ReturnType<typeof createRescue>;

/**
 * The pagehide rescue. A page torn down in the same task as award() (location.reload(), a link) drops the IndexedDB
 * transaction still in flight, so on pagehide the awards whose commit is not known complete are written
 * synchronously to localStorage under this tab's key; the next page merges every rescue of this storage name into
 * the outbox (same idempotency keys: the service dedupes). localStorage may be missing or throw (disabled storage,
 * quota, opaque origin): every access is guarded, and the rescue is then simply not there.
 */
/** Runs fn over localStorage; undefined when it is missing or throws. */
const useStorage = <R>(fn: (ls: Storage) => R): R | undefined => {
  try {
    return fn(localStorage);
  } catch {
    return undefined;
  }
};

/** `prefix`: storageLayout(storageName).rescue. */
export function createRescue(prefix: string) {
  const own = prefix + uuid();
  return {
    /** Replaces this tab's rescue with `awards`; none removes it. */
    save: (awards: PendingAward[]) => useStorage((ls) => (awards.length ? ls.setItem(own, JSON.stringify(awards)) : ls.removeItem(own))),
    /** The keys of every rescue of this storage name (what rescue-merge.ts reads, and removes once merged). */
    found: (): string[] => useStorage((ls) => Object.keys(ls).filter((k) => k.startsWith(prefix))) ?? [],
    /** The merging of found rescues into the store: loaded only by a page that found some. */
    load: () => import('./rescue-merge.js'),
    drop: (keys: string[]) =>
      useStorage((ls) => {
        for (const k of keys) ls.removeItem(k);
      }),
  };
}
