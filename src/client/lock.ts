import type { Lease, leaseLock } from './lease.js';
import type { KV } from './store.js';

export type { Lease } from './lease.js';

/** fn's signal aborts when the lock is lost while held (the lease's renewal found another holder); Web Locks never lose it. */
export type Lock = (fn: (lost: AbortSignal) => Promise<void>) => Promise<unknown>;

/** The signal of a lock that is never lost. */
const KEPT = new AbortController().signal;

/**
 * The lease's store, and where its code comes from: a page loads lease.ts by `() => import('./lease.js')` on the
 * first drain that needs it (most browsers have Web Locks and never do); the service worker passes it, in its one file.
 */
export interface LeaseOption {
  store: KV<Lease>;
  load(): Promise<{ leaseLock: typeof leaseLock }>;
}

/**
 * Runs fn only if no other tab of this origin and storage name is flushing; otherwise does nothing.
 * Web Locks where they exist (released even when a tab crashes); else a lease in IndexedDB (lease.ts, see LeaseOption); with a memory store there is nobody to exclude.
 * `waitMs` (Web Locks only): wait up to that long for a held lock, then reject, instead of doing nothing. The service
 * worker waits: the holder may be a closing tab whose lock outlives it for a moment, not a sender.
 * A lease the store cannot write, or a lease module that cannot load (offline, not cached), excludes nobody: fn runs
 * anyway (the service dedupes by key) and `failed` hears why.
 */
export function createFlushLock(name: string, lease?: LeaseOption, waitMs = 0, failed: (error: unknown) => void = () => {}): Lock {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!lease) return (fn) => fn(KEPT);
  if (locks)
    return (fn) => locks.request(name, waitMs > 0 ? { signal: AbortSignal.timeout(waitMs) } : { ifAvailable: true }, (lock) => lock && fn(KEPT));
  let loading: Promise<Lock> | undefined;
  return async (fn) => {
    loading ??= lease.load().then((module) => module.leaseLock(lease.store, failed));
    const lock = await loading.catch((error: unknown) => {
      // Loaded again on the next drain.
      loading = undefined;
      failed(error);
      return (run: (lost: AbortSignal) => Promise<void>) => run(KEPT);
    });
    return lock(fn);
  };
}
