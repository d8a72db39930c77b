// registerQuestPointsSync()'s options and what it returns and reads (index.ts exports them).

/** registerQuestPointsSync()'s options: where the relay and the player's token are, and how long an event may try. */
export interface QuestPointsSyncOptions {
  /** The relay, as the pages use it: absolute, or relative to the worker's script ('/api'). */
  relayUrl: string;
  /**
   * Same-origin URL answering the player's relay token as JSON `{ "token": "..." }` (readToken), fetched with the
   * player's cookies: the page's getToken() does not exist in the worker.
   */
  tokenUrl: string;
  /** The pages' storageName. Default 'quest-points'. */
  storageName?: string;
  /** The Background Sync (and Periodic Background Sync) tag the pages register. Default 'quest-points'. */
  tag?: string;
  /** Per request (the token URL's too). Default 10 000 ms. */
  timeoutMs?: number;
  /** Between attempts within one event. Defaults: baseMs 1000, maxMs 60 000. */
  backoff?: { baseMs?: number; maxMs?: number };
  /**
   * How long one event keeps retrying before it hands what is left back to the browser (the event fails, so the
   * browser fires it again later). Chromium ends a sync event after 3 minutes. Default 60 000 ms. Each event has
   * its own: one that arrives during an earlier event's drain joins that drain with a full budget.
   */
  budgetMs?: number;
}

/** What registerQuestPointsSync() returns: the worker's delivery, to run by hand or stop. */
export interface QuestPointsSync {
  /**
   * Drains the outbox now, as a sync event does. Resolves when it is empty or another sender (a page) holds the
   * lock; rejects when awards are still queued at the end of the budget, or no token could be had.
   */
  deliver(): Promise<void>;
  /** Stops listening (events and the BroadcastChannel). */
  close(): void;
}

/** The part of a `sync` / `periodicsync` event (SyncEvent, PeriodicSyncEvent) the worker reads. */
export interface SyncEventLike extends Event {
  /** The tag the page registered. */
  readonly tag: string;
  /** Keeps the event (and the worker) alive until `work` ends; a rejection tells the browser to fire it again later. */
  waitUntil(work: Promise<unknown>): void;
}

/** The part of ServiceWorkerGlobalScope this needs (the WebWorker lib and the DOM lib do not mix). */
export interface WorkerScope {
  readonly location: { readonly href: string; readonly origin: string };
  /** Adds a listener for `sync` and `periodicsync`. */
  addEventListener(type: string, listener: (event: SyncEventLike) => void): void;
  /** Removes a listener added by addEventListener (QuestPointsSync.close). */
  removeEventListener(type: string, listener: (event: SyncEventLike) => void): void;
}
