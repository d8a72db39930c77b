import { DEFAULTS } from '../client/defaults.js';

/** The Background Sync tag the pages register and quest-points/sw answers, unless both are given another. */
export const SYNC_TAG = DEFAULTS.syncTag;

/** The part of a registration Background Sync adds (not in TypeScript's DOM types). */
interface SyncRegistration {
  sync?: { register(tag: string): Promise<void> };
}

/**
 * The page side of delivery with the tab closed, for the SDK's `backgroundSync` option:
 * `createQuestPoints({ ..., backgroundSync: backgroundSync() })`. When the outbox must wait for the network (an award
 * queued offline, a failed send, no token), it asks the service worker of this page's scope to deliver the outbox
 * once the network is back (a `sync` event, which fires even after every tab is closed). Where there is no service
 * worker, no registration for this page or no Background Sync (Firefox, Safari), or the player refused it, this does
 * nothing: the pages flush as they always do. One registration call at a time; a tag already registered stays one.
 * It lives here, not in the SDK, so a game without a service worker does not carry it.
 */
export function backgroundSync({ tag = SYNC_TAG }: { tag?: string } = {}): () => void {
  const container = typeof navigator !== 'undefined' ? navigator.serviceWorker : undefined;
  if (!container) return () => {};
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
