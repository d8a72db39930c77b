// The start-up probes of where the game is played (environment.ts keeps what they found). Loaded by import() once
// the client has started: a game pays for them after its first frame, not in its entry. Every probe is guarded: a
// sandboxed frame throws SecurityError on merely reading navigator.serviceWorker, and persisted() rejects there.
// It imports nothing at run time: what it needs of environment.ts comes as arguments, so the split costs the entry no
// shared chunk.
import type { Detected } from './environment.js';
import type { ClosedTabDelivery } from './types.js';

/** Where the page is, as environment.ts's isFramed() and isSandboxed() tell it. */
export interface Place {
  framed: boolean;
  sandboxed: boolean;
}

const g = globalThis as typeof globalThis & { document?: Document };

/** Runs a probe that may throw or reject; its fallback instead. */
async function probe<T>(fn: () => T | Promise<T>, fallback: T): Promise<T> {
  try {
    return await fn();
  } catch {
    return fallback;
  }
}
/**
 * The page's own answer to "is delivery with every tab closed possible here", for backgroundSync(): no service
 * worker API (sandboxed frames throw on reading it), a frame (Chromium refuses to register Background Sync there:
 * InvalidAccessError), no Background Sync in this browser (Firefox, Safari), no worker registered for this page, or the
 * permission refused.
 */
export async function closedTabDelivery({ framed, sandboxed }: Place): Promise<ClosedTabDelivery> {
  if (sandboxed) return { available: false, reason: 'sandboxed' };
  const container = await probe(() => (typeof navigator === 'undefined' ? undefined : navigator.serviceWorker), undefined);
  if (!container) return { available: false, reason: 'no-service-worker' };
  if (framed) return { available: false, reason: 'framed' };
  if (typeof (g as { SyncManager?: unknown }).SyncManager === 'undefined') return { available: false, reason: 'unsupported' };
  const state = await probe(async () => (await navigator.permissions.query({ name: 'background-sync' as PermissionName })).state, 'prompt');
  if (state === 'denied') return { available: false, reason: 'refused' };
  const registration = await probe(() => container.getRegistration(), undefined);
  if (!registration) return { available: false, reason: 'no-service-worker' };
  return { available: true };
}
export interface DetectOptions {
  /** The option persist: ask navigator.storage.persist() (Chromium grants it to pages a player engages with; Firefox asks). */
  persist?: boolean;
  /** The backgroundSync option is set; `check` is its own answer to whether it can work here, when it has one. */
  delivery?: { check?: () => Promise<ClosedTabDelivery> };
}

/**
 * The probes that answer later: partitioned (a frame whose document has no storage access is keyed by the top-level
 * site: document.hasStorageAccess() is the browser's own judgement of "cross-site"), persistent storage, closed-tab
 * delivery. Never rejects.
 */
export async function detectEnvironment({ framed }: Place, { persist, delivery }: DetectOptions): Promise<Detected> {
  const doc = g.document;
  const partitioned = !framed ? false : await probe(async () => (doc?.hasStorageAccess ? !(await doc.hasStorageAccess()) : null), null);
  const manager = await probe(() => (typeof navigator === 'undefined' ? undefined : navigator.storage), undefined);
  let persistent = await probe(async () => (manager?.persisted ? await manager.persisted() : null), null);
  if (persist && persistent === false) persistent = await probe(async () => (await manager?.persist?.()) ?? false, false);
  const closedTab: ClosedTabDelivery = !delivery
    ? { available: false, reason: 'not-configured' }
    : delivery.check
      ? await probe(delivery.check, { available: false, reason: 'no-service-worker' })
      : // A backgroundSync of the game's own making: it knows what it does.
        { available: true };
  return { partitioned, persistent, closedTabDelivery: closedTab };
}
