import type { EnrolledUser, EnrollmentStatus, PointsEvent, QueuedAward } from '../protocol/index.js';

export type { EnrolledUser, EnrollmentStatus, PointsEvent, QueuedAward };

/** What award() accepts. questId and serviceUserId fall back to the defaults given to createQuestPoints. */
export interface AwardInput {
  questId?: string;
  serviceUserId?: string;
  eventPoints: number;
  eventName?: string;
  eventDescription?: string;
}

/** An award in the outbox: the wire award plus when it was queued and its place in the queue. */
export interface PendingAward extends QueuedAward {
  /** Epoch milliseconds. */
  queuedAt: number;
  /** Strictly increasing per tab; the flush order (roughly queue time across tabs). */
  seq: number;
}

/** An award the service or the relay refused for good (400/403/404/413/422 or another final 4xx). */
export interface DeadLetter extends PendingAward {
  /** The HTTP status of the refusal (as everywhere in the SDK: `status` is an HTTP status). */
  status: number;
  message: string;
  rejectedAt: number;
}

/**
 * How an award ended (`outcome`). `sent`: the service acknowledged it (first time or an idempotent replay).
 * `rejected`: it is in the dead-letter store (`deadLetter`, with the HTTP status and message). `closed`: the client
 * was closed first; the award stays queued and is sent by the next client on this storage name.
 */
export type AwardOutcome =
  | { outcome: 'sent'; idempotencyKey: string /** @deprecated Use `outcome`; removed in 0.3. */; status: 'sent' }
  | {
      outcome: 'rejected';
      idempotencyKey: string;
      deadLetter: DeadLetter;
      /** @deprecated Use `outcome`; removed in 0.3. */
      status: 'rejected';
      /** @deprecated Use `deadLetter.status`; removed in 0.3. */
      httpStatus: number;
      /** @deprecated Use `deadLetter.message`; removed in 0.3. */
      message: string;
    }
  | { outcome: 'closed'; idempotencyKey: string /** @deprecated Use `outcome`; removed in 0.3. */; status: 'closed' };

/** What award() returns at once: the award's idempotency key, when it is durable, and how it ended. */
export interface AwardHandle {
  idempotencyKey: string;
  /**
   * The durability signal: true once the award is committed to IndexedDB (it survives a reload, a crash or a closed
   * tab, and is sent by the next page); false when it could only be kept in memory (memory storage, or storage
   * degraded): then it is lost if the page goes away before the service acknowledges it. Never rejects.
   */
  persisted: Promise<boolean>;
  /** Resolves (never rejects) when the award leaves the outbox, or stays there because the client closed. */
  settled: Promise<AwardOutcome>;
}

/** One line of a view's history: the service's entries and this client's awards, newest first, each marked. */
export interface HistoryEntry extends PointsEvent {
  /**
   * `pending`: in the outbox, not acknowledged yet. `sent`: acknowledged by the service, not yet seen in a read.
   * `confirmed`: read from the service.
   */
  state: 'pending' | 'sent' | 'confirmed';
  /** This client's awards (pending and sent) carry their key; confirmed entries come from the service without one. */
  idempotencyKey?: string;
}

/**
 * One (questId, serviceUserId) pair's points as a game shows them: what the service confirmed, plus what it
 * acknowledged since, plus what is still queued, with the history of all three.
 */
export interface PointsView {
  questId: string;
  serviceUserId: string;
  /** confirmedPoints + sentPoints + pendingPoints, exact to 6 decimals: what the game shows. */
  totalPoints: number;
  /** As last read from the service (0 before the first read), or the cached value of an earlier page (then stale). */
  confirmedPoints: number;
  /** Awards the service acknowledged since that read. */
  sentPoints: number;
  /** Awards still in the outbox for this quest and user. */
  pendingPoints: number;
  /** Newest first: pending, then sent, then confirmed entries; at most `historyLimit` (default 100). */
  history: HistoryEntry[];
  /** The awards still in the outbox for this quest and user, newest first. */
  pending: PendingAward[];
  /** Epoch ms of the read the confirmed part comes from, or null if there was none. */
  confirmedAt: number | null;
  /** True when the confirmed part is not from a read of this page (cached from an earlier one), or the last read failed. */
  stale: boolean;
}

/** Immutable; a new object on every change (useSyncExternalStore compares by reference). */
export interface Snapshot {
  /** False after a network failure or an `offline` event, true after any answer from the relay. */
  online: boolean;
  queueSize: number;
  /** Awards this tab knows are dead-lettered (read deadLetters() for the list). */
  deadLetterCount: number;
  /** getToken failed or a fresh token was refused: sending is paused until a token works. */
  authRequired: boolean;
  storage: 'indexeddb' | 'memory' | 'degraded';
  /** Where this page is played and what holds here: where awards are kept, partitioning, persistence, closed-tab delivery. */
  environment: Environment;
  /**
   * Views keyed by pointsKey(questId, serviceUserId): the client's own questId + serviceUserId from the start, and
   * the pairs passed to watchPoints() while watched.
   */
  points: Readonly<Record<string, PointsView>>;
}

/**
 * Why the service worker (quest-points/sw) gave up a Background Sync event. reason: 'budget' (still failing when
 * its budgetMs ran out; the message names the last failure), 'auth' (no token from its tokenUrl — 401/403, or an
 * answer that is not `{ token }` — or the relay refused a fresh one), 'storage' (IndexedDB failed), 'error'.
 */
export interface SyncFailure {
  reason: 'budget' | 'auth' | 'storage' | 'error';
  message: string;
  /** Awards still queued when it gave up. */
  queueSize: number;
}

/**
 * Whether awards can be delivered with every tab closed (Background Sync through quest-points/sw), and why not:
 * 'not-configured' (no backgroundSync option), 'memory' (awards are kept in memory, where the worker cannot read
 * them), 'sandboxed' (a sandbox without allow-same-origin has no service worker), 'framed' (browsers refuse Background
 * Sync in a frame: the awards are sent when the game is open again), 'no-service-worker' (none registered for this
 * page, or none in this browser), 'unsupported' (no Background Sync: Firefox, Safari), 'refused' (the permission is
 * denied, or the registration was refused).
 */
export type ClosedTabDelivery =
  | { available: true; reason?: undefined }
  | { available: false; reason: 'not-configured' | 'memory' | 'sandboxed' | 'framed' | 'no-service-worker' | 'unsupported' | 'refused' };

/** Where the game is played and what holds there (docs/hosting.md). Told at start-up and on every change (`environment:changed`). */
export interface Environment {
  /**
   * Where awards are kept: 'indexeddb' (they survive a reload, a crash and a closed tab) or 'memory' (kept until the
   * page is closed: the HUD says so).
   */
  storage: 'indexeddb' | 'memory';
  /** Why awards are in memory: the `storage: 'memory'` option ('option'), or why IndexedDB failed. */
  storageReason?: 'option' | StorageDegradedReason;
  /** The game runs in a frame (a portal's iframe). */
  framed: boolean;
  /** A sandbox without allow-same-origin (an opaque origin): no storage, no service worker. */
  sandboxed: boolean;
  /**
   * Storage is keyed by the top-level site too (a cross-site frame: another portal, or the game's own page, sees
   * another outbox). null: not known (yet, or not detectable in this browser).
   */
  partitioned: boolean | null;
  /** navigator.storage.persisted(): the browser will not evict the outbox under storage pressure. null: not known. */
  persistent: boolean | null;
  closedTabDelivery: ClosedTabDelivery;
}

/**
 * Why storage degraded (awards are then kept in memory until IndexedDB works again). 'unavailable': no IndexedDB in
 * a browser. 'denied': the browser refuses storage here (a sandboxed frame, storage blocked for the site). 'blocked': another connection blocks the database for 5 s, or a version error. 'quota': the origin's
 * quota is full. 'connection-lost': the browser closed the connection. 'error': any other failure.
 */
export type StorageDegradedReason = 'unavailable' | 'denied' | 'blocked' | 'quota' | 'connection-lost' | 'error';
/**
 * Why an award waits for a retry. 'network': no answer. 'timeout': no answer within `timeoutMs`. 'status': a status
 * the policy retries (408, 409, 425, 429, 5xx). 'auth': no usable token. Any other string: the relay's reason for
 * that award in a batch (such as 'deadline' or 'relay_busy').
 */
export type RetryReason = 'network' | 'timeout' | 'status' | 'auth' | string;

/** Event map. Every listener receives one payload object. */
export interface QuestPointsEvents {
  /**
   * Synchronously inside award(), before the award is committed to storage. `persisted`: the award's
   * AwardHandle.persisted (false: kept in memory only, until the page is closed). Every award:* event carries it; an
   * award another tab (or an earlier page) stored is persisted.
   */
  'award:queued': (e: { award: PendingAward; queueSize: number; persisted: Promise<boolean> }) => void;
  /** The service acknowledged the award (first time or an idempotent replay): it left the outbox. */
  'award:sent': (e: { award: PendingAward; persisted: Promise<boolean> }) => void;
  /** attempt: the queue's consecutive failed attempts (the whole queue backs off together, to keep order). */
  'award:retrying': (e: {
    award: PendingAward;
    reason: RetryReason;
    status?: number;
    attempt: number;
    delayMs: number;
    persisted: Promise<boolean>;
  }) => void;
  /** The award was refused for good (a final 4xx): it is in the dead-letter store, with the status and message. */
  'award:rejected': (e: { deadLetter: DeadLetter; persisted: Promise<boolean> }) => void;
  /** A pair's view changed (the own pair, watched pairs, pairs read): at most once per pair per tick. */
  'points:changed': (e: { view: PointsView }) => void;
  /** The outbox's size changed (this tab's awards or another tab's): at most once per tick. */
  'queue:changed': (e: { queueSize: number }) => void;
  /** A drain emptied the outbox. */
  'queue:drained': (e: { queueSize: 0 }) => void;
  /** A request failed for lack of network (online false), or an answer came back after that (true). */
  'connection:changed': (e: { online: boolean }) => void;
  /** getToken() failed or a fresh token was refused: sending pauses until a token works (the poll, `online`, a visible tab or flush() try again). */
  'auth:required': (e: { error: unknown }) => void;
  /**
   * Where the game is played and what holds there: once at start-up when the probes have answered, and whenever it
   * changes (storage fell back to memory or came back, a Background Sync registration was refused).
   */
  'environment:changed': (e: { environment: Environment }) => void;
  /** IndexedDB failed: awards are kept in memory (and `persisted` resolves false) until it works again. */
  'storage:degraded': (e: { reason: StorageDegradedReason; error?: unknown }) => void;
  /**
   * The service worker gave up a Background Sync event (quest-points/sw, heard by every open page): the awards stay
   * queued; the browser fires the event again later (Chromium: minutes) and the pages send them as usual.
   */
  'sync:failed': (e: SyncFailure) => void;
  /**
   * Something failed where it should not, and the client carries on. `during`: 'flush' (a drain threw), 'lock' (the
   * flush lease could not be written: the drain ran without it), 'watchPoints' or 'subscribe' (that callback threw;
   * the others still ran). With no `error` listener, a callback's error goes to the console.
   */
  error: (e: { error: unknown; during: string }) => void;
}

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

/**
 * The client. Reads of a (questId, serviceUserId) pair's points come three ways, named by how: `viewPoints` (now,
 * from the live state, no request), `watchPoints` (now and on every change) and `fetchPoints` (a read from the
 * service). `subscribe`/`getSnapshot` are the whole client's state for React's useSyncExternalStore. Ids default to
 * the client's own.
 */
export interface QuestPoints {
  /**
   * Queues an award under a fresh idempotency key and returns at once; it is sent in the background (batched, retried
   * with the same key until the service answers for good). Throws QuestPointsError: 'invalid' naming the field and
   * rule, 'queue-full' past `maxQueue`, 'closed' after close().
   */
  award(input: AwardInput): AwardHandle;
  /** Sends what is queued now (ignoring backoff); resolves when this attempt ends. */
  flush(): Promise<void>;
  /**
   * The serviceUserId of an e-mail or a wallet. Once known it is cached and answered offline. Rejects with
   * QuestPointsError: 'invalid' (not exactly one of email or wallet, or a field rule), 'http', 'auth', 'network' or
   * 'timeout' when no answer can be had.
   */
  identify(input: { email: string } | { wallet: { address: string; chain: string } }): Promise<string>;
  /** Reads the pair from the service; offline, the last accepted read marked stale (throws if there is none). */
  fetchPoints(questId?: string, serviceUserId?: string): Promise<PointsView>;
  /** The live view now, without a read (the same object until it changes). */
  viewPoints(questId?: string, serviceUserId?: string): PointsView;
  /**
   * Calls cb with the pair's view now and on every change; returns unwatch. The pair is read in the background while
   * watched (and polled), and its state is released a few seconds after the last unwatch.
   */
  watchPoints(questId: string, serviceUserId: string, cb: (view: PointsView) => void): () => void;
  /** Whether the player is enrolled in the quest, and their points there; null when not (a 404). Rejects as identify() does. */
  fetchEnrollment(questId?: string, serviceUserId?: string): Promise<EnrollmentStatus | null>;
  /**
   * A quest's enrolled users, a page per step, in enrollment order: from `page.offset` (default 0), `page.limit` users
   * per request (default the service's page size). Ends after the last page; rejects as identify() does.
   */
  enrolledUsers(questId?: string, page?: { limit?: number; offset?: number }): AsyncIterableIterator<EnrolledUser[]>;
  /** Calls cb with the snapshot now and after every change (at most once per tick); returns unsubscribe. */
  subscribe(cb: (snapshot: Snapshot) => void): () => void;
  /** The client's state now: the same object until something changes (for React's useSyncExternalStore). */
  getSnapshot(): Snapshot;
  /** The awards still queued, in every tab of this storage name, oldest first, as the store holds them now. */
  pending(): Promise<PendingAward[]>;
  /** The awards refused for good, oldest first. Rejects when the store cannot be read. */
  deadLetters(): Promise<DeadLetter[]>;
  /** Re-queues a dead letter under a new idempotency key (the refused one was never applied); returns the new key. */
  retryDeadLetter(idempotencyKey: string): Promise<string>;
  /**
   * Deletes a dead letter (every tab's deadLetterCount follows); a key that is no dead letter changes nothing. Rejects
   * when the store fails (rather than saying there was none).
   */
  discardDeadLetter(idempotencyKey: string): Promise<void>;
  /** Listens to an event (QuestPointsEvents); returns the client. A listener that throws does not stop the client. */
  on<E extends keyof QuestPointsEvents>(event: E, fn: QuestPointsEvents[E]): QuestPoints;
  /** Removes that listener, or every listener of the event when `fn` is omitted; returns the client. */
  off<E extends keyof QuestPointsEvents>(event: E, fn?: QuestPointsEvents[E]): QuestPoints;
  /** Listens to the next such event only; returns the client. */
  once<E extends keyof QuestPointsEvents>(event: E, fn: QuestPointsEvents[E]): QuestPoints;
  /**
   * Stops sending, reading and listening: commits what award() queued, lets a drain in progress end its batch, and
   * resolves every waiting `settled` as 'closed' (those awards stay queued for the next client on this storage name).
   * A second call does nothing.
   */
  close(): Promise<void>;
  /** @deprecated Renamed `fetchPoints`; removed in 0.3. */
  getPoints(questId?: string, serviceUserId?: string): Promise<PointsView>;
  /** @deprecated Renamed `viewPoints`; removed in 0.3. */
  view(questId?: string, serviceUserId?: string): PointsView;
  /** @deprecated Renamed `fetchEnrollment`; removed in 0.3. */
  getEnrollment(questId?: string, serviceUserId?: string): Promise<EnrollmentStatus | null>;
}
