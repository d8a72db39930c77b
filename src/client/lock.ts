import { uuid } from './uuid.js';
import type { KV } from './store.js';

export interface Lease {
  owner: string;
  until: number;
}

const LEASE_MS = 10_000;

/**
 * Runs fn only if no other tab of this origin and storage name is flushing; otherwise does nothing.
 * Web Locks where they exist (released even when a tab crashes); else a lease in IndexedDB renewed while held
 * (a crashed holder blocks for at most LEASE_MS); with a memory store there is nobody to exclude.
 * `waitMs` (Web Locks only): wait up to that long for a held lock, then reject, instead of doing nothing. The service
 * worker waits: the holder may be a closing tab whose lock outlives it for a moment, not a sender.
 * A lease the store cannot write excludes nobody: fn runs anyway (the service dedupes by key, as for a degraded
 * outbox, which sends its own awards) and `failed` hears why, rather than every run answering `busy` for ever.
 */
export function createFlushLock(
  name: string,
  lease?: KV<Lease>,
  waitMs = 0,
  failed: (error: unknown) => void = () => {},
): (fn: () => Promise<void>) => Promise<unknown> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!lease) return (fn) => fn();
  if (locks) return (fn) => locks.request(name, waitMs > 0 ? { signal: AbortSignal.timeout(waitMs) } : { ifAvailable: true }, (lock) => lock && fn());
  const me = uuid();
  /**
   * Takes, renews (until in the future) or releases (until 0) the lease if it is free, expired or ours; true if so.
   * A store that fails: true, and `failed` is told (see above).
   */
  const claim = (until: number) => {
    let mine = false;
    return lease
      .update('lease', (old) => {
        mine = !old || old.until < Date.now() || old.owner === me;
        return old && !mine ? old : { owner: me, until };
      })
      .then(
        () => mine,
        (error: unknown) => {
          failed(error);
          return true;
        },
      );
  };
  return async (fn) => {
    if (!(await claim(Date.now() + LEASE_MS))) return;
    const renew = setInterval(() => claim(Date.now() + LEASE_MS), LEASE_MS / 3);
    try {
      await fn();
    } finally {
      clearInterval(renew);
      await claim(0);
    }
  };
}
