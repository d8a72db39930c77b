import type { EnrolledUser, EnrollmentStatus, PointsEvent, QueuedAward, RefusalCode } from '../protocol/index.js';

export type { EnrolledUser, EnrollmentStatus, PointsEvent, QueuedAward };

/** What award() accepts. questId and serviceUserId fall back to the defaults given to createQuestPoints. */
export interface AwardInput {
  questId?: string;
  serviceUserId?: string;
  eventPoints: number;
  eventName?: string;
  eventDescription?: string;
  /**
   * A once-only achievement's key (the relay's `events.<name>.once` rule counts eventName + onceKey once per player and
   * quest; without it, the event counts once). Sent to the relay, never to the service (nor in `direct` mode). At most
   * 128 characters, eventName's rules.
   */
  onceKey?: string;
}

/** An award in the outbox: the wire award plus when it was queued and its place in the queue. */
export interface PendingAward extends QueuedAward {
  /** Epoch milliseconds. */
  queuedAt: number;
  /** Strictly increasing per tab; the flush order (roughly queue time across tabs). */
  seq: number;
}

/**
 * An award the service or the relay refused for good (400/403/404/413/422 or another final 4xx), a refusal about the
 * award itself: refusals about the deployment or another player never make one (protocol/status.ts answerHandling).
 */
export interface DeadLetter extends PendingAward {
  /** The HTTP status of the refusal (as everywhere in the SDK: `status` is an HTTP status). */
  status: number;
  message: string;
  /**
   * The relay's machine-readable reason (protocol/refusal.ts): a rule of the economy (`budget`, `once`, `cooldown`,
   * `campaign`, `banned`), `policy`, `invalid`...; a newer relay's code is any other string. Absent when the service
   * refused, or an older relay. What a game shows the player from it: docs/hud.md.
   */
  code?: RefusalCode | (string & {});
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
  /**
   * The relay's deployment refused the last attempt (`deployment:refused`): an origin it does not allow, a wrong URL,
   * a proxy or a WAF in the way. The awards wait (never dead-lettered) and are retried until an attempt gets through.
   */
  deploymentRefused: boolean;
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
 * that award in a batch (such as 'deadline' or 'relay_busy'). 'deployment': the deployment refused it
 * (`deployment:refused`). 'player': the relay says it is another player's than the token's: it waits for that player.
 */
export type RetryReason = 'network' | 'timeout' | 'status' | 'auth' | string;
