/**
 * Every default of the SDK and its service worker, in one literal: the client, the transport, the flusher and
 * quest-points/sw read them from here, so a page and its worker cannot disagree.
 */
export const DEFAULTS = {
  storageName: 'quest-points',
  maxQueue: 10_000,
  pollIntervalMs: 30_000,
  flushDelayMs: 50,
  historyLimit: 100,
  timeoutMs: 10_000,
  backoff: { baseMs: 1000, maxMs: 60_000 },
  /** The Background Sync tag the pages register and the worker answers. */
  syncTag: 'quest-points',
  /** How long one service-worker event keeps retrying. */
  budgetMs: 60_000,
} as const;

/**
 * Where one storage name lives, for the pages and the worker alike (if one drifted, the worker would read an empty
 * database): three idb-keyval databases (one store 'kv' each), the BroadcastChannel and Web Lock name, and the
 * localStorage prefix of the pagehide rescues.
 */
export function storageLayout(storageName: string) {
  const name = `quest-points:${storageName}`;
  return {
    outbox: `${storageName}:outbox`,
    dead: `${storageName}:dead`,
    cache: `${storageName}:cache`,
    /** BroadcastChannel between the tabs (and the worker), and the flush lock. */
    channel: name,
    rescue: `${name}:rescue:`,
  };
}

/**
 * The cache key of an identify answer (in storageLayout's cache): its checked body, or an input as given. Throws for a
 * value with no JSON form. A leaf here, so the account chunk and the entry share nothing more for it.
 */
export const identifyKey = (body: unknown): string => `id:${JSON.stringify(body)}`;
