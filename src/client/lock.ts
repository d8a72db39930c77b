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
 */
export function createFlushLock(name: string, lease?: KV<Lease>): (fn: () => Promise<void>) => Promise<void> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (locks && lease) return async (fn) => void (await locks.request(name, { ifAvailable: true }, async (lock) => (lock ? fn() : undefined)));
  if (!lease) return (fn) => fn();
  const me = crypto.randomUUID();
  const claim = () => {
    let mine = false;
    return lease
      .update('lease', (old) => {
        mine = !old || old.until < Date.now() || old.owner === me;
        return mine ? { owner: me, until: Date.now() + LEASE_MS } : old!;
      })
      .then(() => mine);
  };
  return async (fn) => {
    if (!(await claim().catch(() => false))) return;
    const renew = setInterval(() => claim().catch(() => {}), LEASE_MS / 3);
    try {
      await fn();
    } finally {
      clearInterval(renew);
      await lease.update('lease', (old) => (old?.owner === me ? { owner: me, until: 0 } : old!)).catch(() => {});
    }
  };
}
