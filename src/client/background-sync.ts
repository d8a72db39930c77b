import type { QuestPointsOptions } from './types.js';

/** The Background Sync tag the pages register and quest-points/sw answers, unless both are given another. */
export const SYNC_TAG = 'quest-points';

/** The part of a registration Background Sync adds (not in TypeScript's DOM types). */
interface SyncRegistration {
  sync?: { register(tag: string): Promise<void> };
}

/**
 * With `backgroundSync` on, asks the service worker of this page's scope to deliver the outbox once the network is
 * back (a `sync` event, which fires even after every tab is closed). Where there is no service worker, no
 * registration for this page or no Background Sync (Firefox, Safari), or the player refused it, this does nothing:
 * the pages flush as they always do. One registration call at a time; a tag already registered stays one.
 */
export function createBackgroundSync(option: QuestPointsOptions['backgroundSync']): () => void {
  const container = typeof navigator !== 'undefined' ? navigator.serviceWorker : undefined;
  if (!option || !container) return () => {};
  const tag = (typeof option === 'object' && option.tag) || SYNC_TAG;
  let asking = false;
  return () => {
    if (asking) return;
    asking = true;
    void container
      .getRegistration()
      .then((registration) => (registration as SyncRegistration | undefined)?.sync?.register(tag))
      .catch(() => {})
      .finally(() => {
        asking = false;
      });
  };
}
