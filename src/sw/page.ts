import { DEFAULTS } from '../client/defaults.js';
import { isFramed, isSandboxed } from '../client/environment.js';
import { closedTabDelivery } from '../client/probes.js';
import type { BackgroundSyncOption } from '../client/options.js';
import type { ClosedTabDelivery } from '../client/types.js';

/** The Background Sync tag the pages register and quest-points/sw answers, unless both are given another. */
export const SYNC_TAG = DEFAULTS.syncTag;

/** The part of a registration Background Sync adds (not in TypeScript's DOM types). */
interface SyncRegistration {
  sync?: { register(tag: string): Promise<void> };
}

const place = () => ({ framed: isFramed(), sandboxed: isSandboxed() });

/** navigator.serviceWorker, or undefined where there is none or reading it throws (a sandboxed frame: SecurityError). */
function container(): ServiceWorkerContainer | undefined {
  try {
    return typeof navigator === 'undefined' ? undefined : navigator.serviceWorker;
  } catch {
    return undefined;
  }
}

/**
 * The page side of delivery with the tab closed, for the SDK's `backgroundSync` option:
 * `createQuestPoints({ ..., backgroundSync: backgroundSync() })`. When the outbox must wait for the network (an award
 * queued offline, a failed send, no token), it asks the service worker of this page's scope to deliver the outbox
 * once the network is back (a `sync` event, which fires even after every tab is closed). It never throws: where there
 * is no service worker (or reading it throws, as in a sandboxed frame), no registration for this page, no Background
 * Sync (Firefox, Safari), a frame (Chromium refuses the registration there), or the player refused it, nothing is
 * registered and the client's `environment.closedTabDelivery` says why (`check` answers at start-up, each call's
 * answer after); the pages flush as they always do. One registration call at a time; a tag already registered stays
 * one. It lives here, not in the SDK, so a game without a service worker does not carry it.
 */
export function backgroundSync({ tag = SYNC_TAG }: { tag?: string } = {}): BackgroundSyncOption {
  let asking: Promise<ClosedTabDelivery> | undefined;
  const ask = async (): Promise<ClosedTabDelivery> => {
    const workers = container();
    if (!workers) return closedTabDelivery(place());
    try {
      const registration = (await workers.getRegistration()) as SyncRegistration | undefined;
      // In a frame the frame is the reason: with a worker, the registration would be refused there too.
      if (!registration) return { available: false, reason: isFramed() ? 'framed' : 'no-service-worker' };
      if (!registration.sync) return { available: false, reason: 'unsupported' };
      await registration.sync.register(tag);
      return { available: true };
    } catch (error) {
      // InvalidAccessError from a frame ("without a window"), NotAllowedError when the permission is refused.
      return { available: false, reason: (error as Error)?.name === 'InvalidAccessError' && isFramed() ? 'framed' : 'refused' };
    }
  };
  const request = () =>
    (asking ??= ask().finally(() => {
      asking = undefined;
    }));
  return Object.assign(request, { check: () => closedTabDelivery(place()) });
}

/** What registerWorker() found: the registration, or why there is none (the error's name and message). */
export type WorkerRegistration = { registered: true; registration: ServiceWorkerRegistration } | { registered: false; reason: string };

/**
 * Registers quest-points/sw.js (or your worker) without ever throwing or rejecting: call it, do not await it before
 * createQuestPoints. Where service workers are unavailable (plain http on a LAN address, a sandboxed frame, storage
 * blocked: `NotSupportedError`, `SecurityError`), it resolves `{ registered: false, reason }` and the game runs on,
 * with delivery from open pages only (the client's environment.closedTabDelivery says so).
 */
export async function registerWorker(url: string, options: RegistrationOptions = { type: 'module' }): Promise<WorkerRegistration> {
  const workers = container();
  if (!workers) return { registered: false, reason: isSandboxed() ? 'sandboxed: no service worker' : 'no service worker in this browser' };
  try {
    return { registered: true, registration: await workers.register(url, options) };
  } catch (error) {
    return { registered: false, reason: `${(error as Error)?.name ?? 'Error'}: ${(error as Error)?.message ?? error}` };
  }
}
