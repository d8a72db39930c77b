// Where the game is played, and what holds there (docs/hosting.md): a top-level page or a portal's frame, storage
// partitioned by the top-level site or not, sandboxed without storage, persistent or evictable, delivery with every
// tab closed or not. What is known at once is here; the probes that answer later (probes.ts, loaded after start, each
// guarded: a sandboxed frame throws SecurityError on merely reading navigator.serviceWorker or localStorage) hand
// their findings to createEnvironment's owner, which puts each change in the client's state (state.ts) and the event.
import type { ClosedTabDelivery, Environment } from './types.js';

type Global = typeof globalThis & { document?: Document; top?: unknown; self?: unknown; origin?: string };
const g = globalThis as Global;

/** A frame (iframe) rather than the top-level page; reading `top` never throws, comparing it does not either. */
export const isFramed = (): boolean => !!g.document && g.top !== undefined && g.top !== g.self;

/** A sandboxed document without allow-same-origin (an opaque origin): no IndexedDB, Web Locks, storage or service worker. */
export const isSandboxed = (): boolean => !!g.document && g.origin === 'null';

/** What the client knows before any probe answers: the storage it chose, nothing else yet. */
export function initialEnvironment(storage: Environment['storage'], storageReason?: Environment['storageReason']): Environment {
  return {
    storage,
    ...(storageReason ? { storageReason } : {}),
    framed: isFramed(),
    sandboxed: isSandboxed(),
    partitioned: isFramed() ? null : false,
    persistent: null,
    closedTabDelivery: { available: false, reason: 'not-configured' },
  };
}

/** What the start-up probes find (probes.ts). */
export type Detected = Pick<Environment, 'partitioned' | 'persistent' | 'closedTabDelivery'>;

/**
 * The one writer of the client's Environment: what the probes found, and the storage in use now. The environment is
 * held once, in the client's state (`current` reads it there); every change makes a new object (the snapshot's) and
 * is told once through `changed`, which dispatches it. Awards in memory cannot be delivered by the
 * worker: while storage is memory, closed-tab delivery says so, and comes back with IndexedDB.
 */
export function createEnvironment(current: () => Environment, changed: (env: Environment) => void) {
  let found: ClosedTabDelivery = current().closedTabDelivery;
  const derive = (next: Environment): Environment =>
    next.storage === 'memory' && found.available
      ? { ...next, closedTabDelivery: { available: false, reason: 'memory' } }
      : { ...next, closedTabDelivery: found };
  function apply(next: Environment, always = false) {
    const derived = derive(next);
    if (!always && JSON.stringify(derived) === JSON.stringify(current())) return;
    changed(derived);
  }
  return {
    current,
    /** The probes answered (at start-up): told even when nothing changed, so a game hears what holds once. */
    detected(d: Detected) {
      found = d.closedTabDelivery;
      apply({ ...current(), ...d }, true);
    },
    /** A Background Sync registration answered: refused (a frame, no worker) or possible after all. */
    delivery(d: ClosedTabDelivery) {
      found = d;
      apply(current());
    },
    /** Storage fell back to memory (why), or IndexedDB works again. */
    storage(kind: Environment['storage'], reason?: Environment['storageReason']) {
      const { storageReason: _old, ...rest } = current();
      apply({ ...rest, storage: kind, ...(reason ? { storageReason: reason } : {}) });
    },
  };
}

export type EnvironmentOwner = ReturnType<typeof createEnvironment>;
