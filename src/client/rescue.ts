import type { Newer } from './format.js';
import type { KV } from './store.js';
import type { DeadLetter, PendingAward } from './types.js';
import { uuid } from './uuid.js';

export type Rescue = ReturnType<typeof createRescue>;

/** Runs fn over localStorage; undefined when it is missing or throws. */
const withStorage = <R>(fn: (ls: Storage) => R): R | undefined => {
  try {
    return fn(localStorage);
  } catch {
    return undefined;
  }
};

/**
 * The pagehide rescue. A page torn down in the same task as award() (location.reload(), a link) drops the IndexedDB
 * transaction still in flight, so on pagehide the awards whose commit is not known complete are written
 * synchronously to localStorage under this tab's key; the next page merges every rescue of this storage name into
 * the outbox (same idempotency keys: the service dedupes). localStorage may be missing or throw (disabled storage,
 * quota, opaque origin): every access is guarded, and the rescue is then simply not there.
 * `prefix`: storageLayout(storageName).rescue; `newer` hears of an award of a newer stored format (format.ts).
 */
export function createRescue(prefix: string, newer?: Newer) {
  const own = prefix + uuid();
  /** The rescues of this storage name in localStorage (every tab's), none where it is missing or throws. */
  const found = () => withStorage((ls) => Object.keys(ls).filter((k) => k.startsWith(prefix))) ?? [];
  const drop = (keys: string[]) =>
    withStorage((ls) => {
      for (const k of keys) ls.removeItem(k);
    });
  return {
    /** Replaces this tab's rescue with `awards`; none removes it. */
    save: (awards: PendingAward[]) => withStorage((ls) => (awards.length ? ls.setItem(own, JSON.stringify(awards)) : ls.removeItem(own))),
    /**
     * Start-up: a write of every rescue of this storage name into the store, and `merged()` to remove them once it is
     * in (a rescue holding an award of a newer stored format stays, format.ts); nothing when none was found.
     * rescue-merge.ts loads then (most pages find none): a chunk that cannot load writes nothing and leaves the rescues
     * for a later page (a failure of the store's own is the write's).
     */
    merge(queue: KV<PendingAward>, dead: KV<DeadLetter>) {
      const keys = found();
      if (!keys.length) return undefined;
      let merged: string[] | undefined;
      return {
        async write() {
          merged = await (await import('./rescue-merge.js').catch(() => undefined))?.mergeRescues(keys, queue, dead, newer);
        },
        merged: () => merged && drop(merged),
      };
    },
    /**
     * Awards settled (acknowledged or dead-lettered, here or in another tab or the worker) leave every rescue of this
     * storage name: a rescue outlives its page, and the next visit would queue them again from it, under their old
     * keys, after the service may have forgotten them. rescue-merge.ts rewrites them (most pages have no rescue).
     */
    forget(keys: string[]) {
      const rescues = found();
      if (rescues.length && keys.length)
        void import('./rescue-merge.js').then(
          ({ forgetRescued }) => forgetRescued(rescues, keys),
          () => {},
        );
    },
  };
}
