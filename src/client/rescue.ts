import type { KV } from './store.js';
import type { DeadLetter, PendingAward } from './types.js';
import { uuid } from './uuid.js';

export type Rescue = ReturnType<typeof createRescue>;

/**
 * The pagehide rescue. A page torn down in the same task as award() (location.reload(), a link) drops the IndexedDB
 * transaction still in flight, so on pagehide the awards whose commit is not known complete are written
 * synchronously to localStorage under this tab's key; the next page merges every rescue of this storage name into
 * the outbox (same idempotency keys: the service dedupes). localStorage may be missing or throw (disabled storage,
 * quota, opaque origin): every access is guarded, and the rescue is then simply not there.
 */
/** `prefix`: storageLayout(storageName).rescue. */
export function createRescue(prefix: string) {
  const own = prefix + uuid();
  const use = <R>(fn: (ls: Storage) => R): R | undefined => {
    try {
      return fn(localStorage);
    } catch {
      return undefined;
    }
  };
  return {
    /** Replaces this tab's rescue with `awards`; none removes it. */
    save: (awards: PendingAward[]) => use((ls) => (awards.length ? ls.setItem(own, JSON.stringify(awards)) : ls.removeItem(own))),
    /** Every rescue of this storage name: the keys (to remove once merged) and the awards (unreadable ones skipped). */
    found() {
      const keys = use((ls) => Object.keys(ls).filter((k) => k.startsWith(prefix))) ?? [];
      return { keys, awards: keys.flatMap((k): PendingAward[] => use((ls) => JSON.parse(ls.getItem(k) ?? '[]')) ?? []) };
    },
    drop: (keys: string[]) =>
      use((ls) => {
        for (const k of keys) ls.removeItem(k);
      }),
  };
}

/**
 * Start-up: the awards earlier pages rescued, as a write into the store that skips those known there (queued or
 * dead-lettered), and `merged()` to remove their rescues once that write is committed. Nothing when none was found.
 */
export function mergeRescues(rescue: Rescue, queue: KV<PendingAward>, dead: KV<DeadLetter>) {
  const found = rescue.found();
  if (!found.keys.length) return undefined;
  return {
    async write() {
      const known = new Set([...(await queue.all()), ...(await dead.all())].map((r) => r.idempotencyKey));
      await queue.setMany(found.awards.filter((r) => !known.has(r.idempotencyKey)).map((r) => [r.idempotencyKey, r]));
    },
    merged: () => rescue.drop(found.keys),
  };
}
