import type { KV } from './store.js';
import { uuid } from './uuid.js';

/** The flush lease's record in the cache store: who holds it, until when. */
export interface Lease {
  owner: string;
  until: number;
}

const LEASE_MS = 10_000;

/**
 * The flush lock where Web Locks are missing (non-secure contexts, old browsers): a lease in IndexedDB renewed while
 * held (a crashed holder blocks for at most LEASE_MS). Loaded by lock.ts on the first drain, only there.
 * A lease the store cannot write excludes nobody: fn runs anyway (the service dedupes by key, as for a degraded
 * outbox, which sends its own awards) and `failed` hears why, rather than every run answering `busy` for ever.
 * A lease lost while held (a renewal that finds another holder: this tab's timers were throttled past LEASE_MS, as a
 * hidden tab's are, and another tab took the expired lease) aborts fn's signal: the drain stops after its batch
 * rather than send beside the new holder.
 */
export function leaseLock(lease: KV<Lease>, failed: (error: unknown) => void): (fn: (lost: AbortSignal) => Promise<void>) => Promise<unknown> {
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
    const lost = new AbortController();
    const renew = setInterval(() => void claim(Date.now() + LEASE_MS).then((mine) => mine || lost.abort()), LEASE_MS / 3);
    try {
      await fn(lost.signal);
    } finally {
      clearInterval(renew);
      await claim(0);
    }
  };
}
