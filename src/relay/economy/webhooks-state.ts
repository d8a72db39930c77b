// Where webhook delivery keeps its place: per endpoint, the ledger cursor (the last entry taken in), the deliveries
// still to be made (each with its attempt count and when it is due), a dead-letter list, and one lease so that one
// relay delivers at a time. In memory here (pending deliveries die with the process: the ledger is in memory too); on
// Redis in node/webhooks-redis.ts, where a restarted relay resumes from the cursor.
import type { LedgerEntry } from './contract.js';

/** One delivery of one ledger entry to one endpoint, as it waits for its next attempt. */
export interface PendingDelivery {
  /** The endpoint's URL (from the operator's config). */
  endpoint: string;
  /** The webhook id: the award's key (a reversal's own key), so a receiver deduplicates. */
  id: string;
  /** The ledger entry delivered (outcome acknowledged or reversed). */
  entry: LedgerEntry;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due, ms since the epoch. */
  dueAt: number;
  /** What the last attempt got: `HTTP 500`, `timeout`, `ECONNRESET`... */
  lastError?: string;
}

/** A delivery that ran out of attempts (or met 410 Gone): kept for GET /admin/webhooks/dead and replay. */
export interface DeadDelivery extends PendingDelivery {
  /** When it was given up, ms since the epoch. */
  deadAt: number;
}

/** Which dead letters a replay sends again. */
export type ReplaySelection = { ids: readonly string[] } | { all: true };

/** The delivery state, shared by every relay pointed at the same store. */
export interface WebhookStateStore {
  /** Take or renew the delivery lease for `ttlMs`: true when `owner` holds it (no other relay delivers meanwhile). */
  lease(owner: string, ttlMs: number): Promise<boolean>;
  /** Let the lease go (a relay shutting down), so another takes over at once. */
  release(owner: string): Promise<void>;
  /** The id of the last ledger entry the endpoint took in, undefined before the first. */
  cursor(endpoint: string): Promise<string | undefined>;
  /** Add (or replace: same endpoint and id) deliveries, then move the endpoint's cursor, in that order. */
  intake(endpoint: string, deliveries: readonly PendingDelivery[], cursor: string): Promise<void>;
  /** How many deliveries wait for the endpoint (intake stops at the cap: the rest waits in the ledger). */
  pendingCount(endpoint: string): Promise<number>;
  /** The deliveries due by `now` (at most `limit`), and when the next one not yet due is. */
  due(now: number, limit: number): Promise<{ due: PendingDelivery[]; nextAt?: number }>;
  /** Replace a pending delivery (after a failed attempt: more attempts, a later dueAt). */
  reschedule(delivery: PendingDelivery): Promise<void>;
  /** Drop a delivered one. */
  done(endpoint: string, id: string): Promise<void>;
  /** Move a delivery to the dead letters (dropping the oldest beyond the store's cap). */
  bury(delivery: DeadDelivery): Promise<void>;
  /** The dead letters, oldest first (at most `limit`). */
  dead(limit: number): Promise<DeadDelivery[]>;
  /** Dead letters back to pending, due `now`, attempts from zero; clears `gone` of their endpoints. Resolves with how many. */
  revive(selection: ReplaySelection, now: number): Promise<number>;
  /** Whether the endpoint answered 410 Gone (nothing is sent to it until a replay). */
  isGone(endpoint: string): Promise<boolean>;
  /** Mark the endpoint gone (it answered 410): its waiting deliveries go to the dead letters, nothing more is sent until a replay. */
  markGone(endpoint: string): Promise<void>;
}

/** The dead letters a store keeps at most, by default; beyond it the oldest go (the ledger still has them). */
export const DEFAULT_MAX_DEAD = 10_000;

/** Options of createMemoryWebhookState. */
export interface MemoryWebhookStateOptions {
  /** Dead letters kept at most; default DEFAULT_MAX_DEAD. */
  maxDead?: number;
}

const slot = (endpoint: string, id: string) => `${endpoint}\n${id}`;

/**
 * The delivery state in this process's memory: one relay, lost on restart (so are the memory ledger's entries). Bounded:
 * pending deliveries by the deliverer's per-endpoint cap, dead letters by `maxDead`.
 */
export function createMemoryWebhookState(options: MemoryWebhookStateOptions = {}): WebhookStateStore {
  const maxDead = options.maxDead ?? DEFAULT_MAX_DEAD;
  const cursors = new Map<string, string>();
  const pending = new Map<string, PendingDelivery>();
  const counts = new Map<string, number>();
  const dead = new Map<string, DeadDelivery>();
  const gone = new Set<string>();
  const put = (delivery: PendingDelivery) => {
    const key = slot(delivery.endpoint, delivery.id);
    if (!pending.has(key)) counts.set(delivery.endpoint, (counts.get(delivery.endpoint) ?? 0) + 1);
    pending.set(key, delivery);
  };
  const drop = (endpoint: string, id: string) => {
    if (pending.delete(slot(endpoint, id))) counts.set(endpoint, (counts.get(endpoint) ?? 1) - 1);
  };
  return {
    lease: async () => true,
    release: async () => {},
    cursor: async (endpoint) => cursors.get(endpoint),
    async intake(endpoint, deliveries, cursor) {
      for (const delivery of deliveries) put(delivery);
      cursors.set(endpoint, cursor);
    },
    pendingCount: async (endpoint) => counts.get(endpoint) ?? 0,
    async due(now, limit) {
      const due: PendingDelivery[] = [];
      let nextAt: number | undefined;
      // A scan: the pending map is bounded by the per-endpoint cap, and due() runs once per tick.
      for (const delivery of pending.values()) {
        if (delivery.dueAt <= now) {
          if (due.length < limit) due.push(delivery);
        } else if (nextAt === undefined || delivery.dueAt < nextAt) nextAt = delivery.dueAt;
      }
      return nextAt === undefined ? { due } : { due, nextAt };
    },
    reschedule: async (delivery) => put(delivery),
    done: async (endpoint, id) => drop(endpoint, id),
    async bury(delivery) {
      drop(delivery.endpoint, delivery.id);
      const key = slot(delivery.endpoint, delivery.id);
      dead.delete(key);
      dead.set(key, delivery);
      while (dead.size > maxDead) dead.delete(dead.keys().next().value as string);
    },
    dead: async (limit) => [...dead.values()].slice(0, limit),
    async revive(selection, now) {
      const ids = 'ids' in selection ? new Set(selection.ids) : undefined;
      let revived = 0;
      for (const [key, delivery] of dead) {
        if (ids && !ids.has(delivery.id)) continue;
        dead.delete(key);
        gone.delete(delivery.endpoint);
        const { deadAt: _, lastError: __, ...rest } = delivery;
        put({ ...rest, attempts: 0, dueAt: now });
        revived += 1;
      }
      if (!ids) gone.clear();
      return revived;
    },
    isGone: async (endpoint) => gone.has(endpoint),
    markGone: async (endpoint) => {
      gone.add(endpoint);
    },
  };
}
