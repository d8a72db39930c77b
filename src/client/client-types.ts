import type {
  AwardHandle,
  AwardInput,
  DeadLetter,
  EnrolledUser,
  EnrollmentStatus,
  Environment,
  PendingAward,
  PointsView,
  RetryReason,
  Snapshot,
  StorageDegradedReason,
  SyncFailure,
} from './types.js';

// The client's public interface: its event map and its methods (the data they carry is in types.ts).

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
   * The deployment refused the queue, not the awards: the relay's origin or route refusal (its `code`: 'origin',
   * 'route'), or an answer that is not the relay's (a proxy's HTML 404, a WAF's or CDN's 403). Nothing is
   * dead-lettered: the queue holds (snapshot `deploymentRefused`) and is tried again with backoff (at most
   * `backoff.maxMs` apart; `online`, a visible tab and flush() try at once), so a fixed deployment delivers every award
   * without a reload. Told on each attempt refused; `attempt` and `delayMs` as in `award:retrying`.
   */
  'deployment:refused': (e: { status: number; message: string; code?: string; attempt: number; delayMs: number }) => void;
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
   * the others still ran), 'format' (the store holds records of a newer stored format, written by a newer release: they
   * are left as they are, for it; once per page, with a console warning; docs/releases.md). With no `error` listener,
   * a callback's error goes to the console.
   */
  error: (e: { error: unknown; during: string }) => void;
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
