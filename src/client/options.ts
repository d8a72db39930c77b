import type { ClosedTabDelivery } from './types.js';

// createQuestPoints()'s options (the public types of the client are index.ts's: types.ts, options.ts, client-types.ts).

/**
 * The part of an IDBFactory the SDK uses: a Storage Access handle's `indexedDB`, or the page's own. Declared here so
 * the SDK's types do not need the DOM library (a server that imports them type-checks without it).
 */
export interface IndexedDBFactory {
  /** IDBFactory.open(): answers an IDBOpenDBRequest. */
  open(name: string): unknown;
}

/**
 * The backgroundSync option: called when the outbox must wait for the network. It may answer whether the registration
 * worked (a promise of a ClosedTabDelivery), and `check` says at start-up whether it can work here; quest-points/sw's
 * backgroundSync() does both.
 */
export type BackgroundSyncOption = (() => unknown) & {
  /** At start-up: whether delivery with every tab closed can work here, and why not. */
  check?: () => Promise<ClosedTabDelivery>;
};

/**
 * createQuestPoints()'s options. Relay mode (a browser game): `relayUrl` and `getToken`. Direct mode (servers and
 * scripts): `direct`. createQuestPoints() throws QuestPointsError 'config' when the mode's options are missing.
 */
export interface QuestPointsOptions {
  /** Base URL of the relay, absolute or (in a browser) relative such as '/api'. */
  relayUrl?: string;
  /** A player token for the relay. Called when needed and after a 401; cached until 30 s before its JWT exp. */
  getToken?: () => string | Promise<string>;
  questId?: string;
  serviceUserId?: string;
  /** Names the outbox: two games on one origin use two names. Default 'quest-points'. */
  storageName?: string;
  /** 'auto' (default): IndexedDB when present, else memory. */
  storage?: 'auto' | 'indexeddb' | 'memory';
  /** Per request. Default 10 000 ms. */
  timeoutMs?: number;
  /** Exponential backoff with full jitter. Defaults: baseMs 1000, maxMs 60 000. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** award() throws past this many queued awards. Default 10 000. */
  maxQueue?: number;
  /** Refresh of watched points and the flush timer, while the page is visible. Default 30 000 ms. */
  pollIntervalMs?: number;
  /** The most history entries a view holds (pending, sent and confirmed together). Default 100. */
  historyLimit?: number;
  /** Delay between an award and the flush it triggers. Default 50 ms. */
  flushDelayMs?: number;
  /** The fetch every request goes through. Default the global fetch (a test double or a wrapped fetch can be given). */
  fetch?: typeof fetch;
  /**
   * Delivery with the tab closed: called when the outbox must wait for the network (an award queued offline, a
   * failed send, no token). `backgroundSync()` from quest-points/sw registers the Background Sync tag with the page's
   * service worker, which runs quest-points/sw; it does nothing where Background Sync is missing. Off by default.
   */
  backgroundSync?: BackgroundSyncOption;
  /**
   * Ask the browser to keep the outbox under storage pressure (navigator.storage.persist()) at start-up. The answer is
   * in `environment.persistent`. Off by default: Firefox asks the player.
   */
  persist?: boolean;
  /**
   * The IndexedDB to keep awards in. Default the page's own. In a portal's frame that is partitioned by the portal's
   * site; where the host grants the Storage Access API, pass the unpartitioned one the player allowed:
   * `(await document.requestStorageAccess({ indexedDB: true })).indexedDB` (in a user gesture; docs/hosting.md).
   */
  indexedDB?: IndexedDBFactory;
  /** Talk to the service itself with its API key. Servers and scripts only. */
  direct?: { url: string; apiKey: string };
  /** Allow `direct` in a browser, which exposes the API key to every player. */
  dangerouslyAllowBrowser?: boolean;
}
