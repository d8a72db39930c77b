import { createJournal, type Journal } from './journal.js';
import type { requeueDeploymentLetters } from './legacy.js';
import { createMirror } from './mirror.js';
import { pairOf } from './pair.js';
import type { Rescue } from './rescue.js';
import { storageFailure, type KV } from './store.js';
import type { DeadLetter, PendingAward, StorageDegradedReason } from './types.js';

export type Outbox = ReturnType<typeof createOutbox>;

export interface OutboxDeps {
  queue: KV<PendingAward>;
  dead: KV<DeadLetter>;
  /** The store failed: from now on the outbox keeps everything in memory until recover(). */
  degraded(reason: StorageDegradedReason, error: unknown): void;
  /** Awards this outbox just committed (for the other tabs). */
  committed?(awards: PendingAward[]): void;
  /** The store survives the page (IndexedDB): `persisted` can be true. Memory never persists. */
  durable?: boolean;
  rescue?: Rescue;
  /**
   * Where legacy.ts comes from (a page: `() => import('./legacy.js')`, loaded only when there are dead letters): the
   * dead letters an earlier version kept for a deployment refusal go back to the queue at start-up. The service
   * worker leaves that to the pages (its one file stays small).
   */
  legacy?: () => Promise<{ requeueDeploymentLetters: typeof requeueDeploymentLetters }>;
  now?: () => number;
  /** reload() found awards gone from the store, or new in it: the queue of these pairs changed without a message. */
  reconciled?(pairs: string[]): void;
}

/**
 * The queue of unacknowledged awards. IndexedDB (or memory) is the truth shared by tabs; this tab's copy of it is
 * mirror.ts (so award() never reads the store), and what the store does not hold yet is journal.ts. Every store
 * operation goes through one chain, in issue order, so reload() sees every earlier write and recover() replays the
 * journal after them. The outbox schedules its own writes: the awards added in one tick go in one setMany (one
 * transaction), issued in a microtask after the first of them. While the store fails, the journal keeps everything
 * and recover() replays it.
 */
export function createOutbox({
  queue,
  dead,
  degraded: onDegraded,
  committed,
  durable = true,
  rescue,
  legacy,
  now = () => Date.now(),
  reconciled,
}: OutboxDeps) {
  const mirror = createMirror(now);
  const journal: Journal = createJournal();
  let degraded = false;
  /** The last store operation issued: the next one starts after it. */
  let writing: Promise<unknown> = Promise.resolve();
  /** Set once a pagehide rescued this page's awards: the rescue then follows each commit. */
  let rescued = false;
  /** The awards added since the last write began: resolves true once they are in the store. */
  let next: { written: Promise<boolean>; wrote(ok: boolean): void } | undefined;

  function degrade(error: unknown) {
    if (!degraded) onDegraded(storageFailure(error), error);
    degraded = true;
  }

  /** A store operation that degrades the outbox instead of throwing; true when it worked. */
  const attempt = async (op: () => Promise<unknown>) => {
    if (degraded) return false;
    try {
      await op();
      return true;
    } catch (error) {
      degrade(error);
      return false;
    }
  };

  /** Still in the store but no longer queued: deleted here (not yet landed) or settled by another tab. reload() skips it. */
  const leaving = (key: string) => journal.isDeleting(key) || mirror.isSettledElsewhere(key);

  /** Every store operation goes through the chain, in issue order: reload() sees every earlier write. */
  const chain = <T>(work: () => Promise<T>): Promise<T> => {
    const done = writing.then(work, work);
    writing = done.catch(() => {});
    return done;
  };

  /** This tab's rescue holds what is not known committed (added, or in a commit still in flight); none: removed. */
  const stash = () => rescue?.save(journal.unwritten());

  // Start-up: what earlier pages rescued joins the store, first in the chain (a failing store leaves it for later).
  const merge = rescue?.merge(queue, dead);
  if (merge) void chain(async () => (await attempt(merge.write)) && merge.merged());
  // Start-up: what an earlier version dead-lettered for a deployment refusal goes back to the queue (legacy.ts, loaded
  // only when there are dead letters: most pages have none; one that cannot load leaves them for a later start),
  // before the first reload() reads it; the dead letters are counted after it.
  const requeued =
    legacy &&
    chain(() => attempt(async () => (await dead.keys()).length && (await legacy().catch(() => undefined))?.requeueDeploymentLetters(queue, dead)));

  /** Writes what add() collected, in one transaction, after earlier store work. True when it is in the store. */
  function commit(): Promise<boolean> {
    const taken = next;
    next = undefined;
    return chain(async () => {
      // Taken together, so every award in this batch is persisted with this write (later ones wait for the next).
      const batch = journal.awards();
      // Kept in the journal until written, so reload() never mistakes an award in flight for an acknowledged one.
      // Empty: an earlier commit, issued before this one but run after these awards were added, wrote them (a failed
      // write leaves its awards in the journal). They are stored: `persisted` is true, not false.
      const ok = batch.length === 0 ? !degraded : await attempt(() => queue.setMany(batch));
      taken?.wrote(ok && durable);
      if (!ok || !batch.length) return ok && !!taken;
      journal.written(batch);
      // The page survived its pagehide (back/forward cache): the rescue shrinks to what is still uncommitted.
      if (rescued) stash();
      // The other tabs hear of them in a task of their own: cloning a burst's records for BroadcastChannel (tens of
      // ms for 10,000) must not hold up the page's own work, such as `persisted` and what waits on it.
      if (committed)
        setTimeout(
          committed,
          0,
          batch.map(([, v]) => v),
        );
      return taken ? ok : false;
    });
  }

  /** Reconciles the mirror with the store's keys (and the records this tab does not hold). In the chain. */
  async function reconcile() {
    const seen = new Set<string>();
    const stillStored = new Set<string>();
    // The keys first, and only the records this tab does not hold: a drain after a burst of 10,000 read back
    // all of them (the values copied out of IndexedDB and cloned into new objects) just to find them known.
    const missing: string[] = [];
    const stored = await queue.keys();
    for (const key of stored) {
      if (mirror.isSettledElsewhere(key)) stillStored.add(key);
      if (leaving(key)) continue;
      seen.add(key);
      if (!mirror.has(key)) missing.push(key);
      mirror.stored(key);
    }
    const changed = new Set(mirror.vanishUnless((key) => seen.has(key) || journal.has(key)).map(pairOf));
    mirror.landedElsewhere(stillStored);
    if (missing.length) await readMissing(missing, stored.length, changed);
    if (changed.size) reconciled?.([...changed]);
  }

  /** The records of `missing` keys, into the mirror; their pairs into `changed`. */
  async function readMissing(missing: string[], storedCount: number, changed: Set<string>) {
    // Read apart from the keys: meanwhile a record may have been deleted (none), settled elsewhere or heard of.
    // A few by key; many (an earlier page's outbox at start-up) in one getAll: in Chromium a get costs about
    // 25 µs and getAll about 7 µs a record, so past a quarter of the store one read of it all is cheaper.
    const read = missing.length * 4 <= storedCount ? await queue.getMany(missing) : await queue.all();
    for (const rec of read) {
      if (!rec || leaving(rec.idempotencyKey)) continue;
      if (!mirror.has(rec.idempotencyKey)) {
        mirror.keep(rec);
        changed.add(pairOf(rec));
      }
      mirror.stored(rec.idempotencyKey);
    }
  }

  const queued = () => mirror.queued(degraded);

  return {
    /** Awards in this tab's copy of the queue. */
    size: mirror.size,
    get degraded() {
      return degraded;
    },
    nextSeq: mirror.nextSeq,
    /** O(1): written in a microtask with the tick's other awards; one promise for them, true once durably stored. */
    add(rec: PendingAward): Promise<boolean> {
      mirror.keep(rec);
      journal.add(rec);
      if (!next) {
        let wrote!: (ok: boolean) => void;
        const written = new Promise<boolean>((resolve) => (wrote = resolve));
        next = { written, wrote };
        queueMicrotask(commit);
      }
      return next.written;
    },
    /** Awards another tab wrote: shown, never written again by this tab (a fast tab's 'done' can overtake its 'add'). */
    addRemote(recs: PendingAward[]) {
      for (const rec of recs) mirror.heard(rec);
    },
    commit,
    /** Resolves once every store operation issued so far is done. */
    landed: () => chain(async () => {}),
    /** Acknowledged (or dead-lettered) awards leave the outbox. `local`: this tab deletes them from the store. */
    remove(keys: string[], local: boolean): PendingAward[] {
      const removed: PendingAward[] = [];
      for (const k of keys) {
        const rec = mirror.take(k);
        journal.drop(k);
        if (rec) removed.push(rec);
      }
      if (local) {
        // Until deleted from the store, reload() must not bring them back.
        journal.deleting(keys);
        void chain(async () => {
          if (await attempt(() => queue.delMany(keys))) journal.deleted(keys);
        });
      } else mirror.settledElsewhere(keys);
      return removed;
    },
    /**
     * Acknowledged awards leave every rescue (rescue.ts): a later visit must not queue them again. (A dead letter's
     * award stays there: the merge skips it once its letter is stored, and queues it again if the store failed.)
     */
    acknowledged: (keys: string[]) => rescue?.forget(keys),
    /** The dead letter is stored before the award leaves the queue: it is never in neither. True once stored. */
    kill(letters: DeadLetter[]): Promise<boolean> {
      const entries = letters.map((d): [string, DeadLetter] => [d.idempotencyKey, d]);
      return chain(async () => {
        // Not stored: kept in this tab's journal (recover() writes it), and the award stays in the queue's store.
        if (await attempt(() => dead.setMany(entries))) return true;
        journal.keepDead(entries);
        return false;
      });
    },
    /** Stored and journalled dead letters, oldest first. Rejects when the store cannot be read (then degraded). */
    async deadLetters(): Promise<DeadLetter[]> {
      await requeued;
      const stored = await dead.all().catch((error: unknown) => {
        degrade(error);
        throw error;
      });
      const all = new Map(stored.map((d) => [d.idempotencyKey, d]));
      for (const d of journal.deadLetters()) all.set(d.idempotencyKey, d);
      return [...all.values()].sort((a, b) => a.seq - b.seq);
    },
    /** Removes a dead letter; false when there was none under this key. Rejects when the store failed. */
    dropDead(key: string): Promise<boolean> {
      return chain(async () => {
        const journalled = journal.dropDead(key);
        try {
          const known = journalled || (await dead.get(key)) !== undefined;
          if (known) await dead.delMany([key]);
          return known;
        } catch (error) {
          degrade(error);
          throw error;
        }
      });
    },
    /** The queue as the store holds it now (other tabs' work merged into the mirror), oldest first; degraded: own only. */
    async reload(): Promise<PendingAward[]> {
      await chain(() => attempt(reconcile));
      return queued();
    },
    /** The mirror, oldest first, without reading the store. While degraded: this tab's own awards only. */
    queued,
    /** On pagehide, synchronously: the awards this page could still lose go to its rescue. */
    rescue() {
      rescued = true;
      stash();
    },
    pendingOf: mirror.ofPair,
    /** Awards gone from the store whose settling tab never told within VANISHED_MS (mirror.ts): they leave here. */
    unheard: mirror.unheard,
    isLate: mirror.isLate,
    /**
     * Replays the journal once the store works again; true when it does. In the chain like every store operation,
     * and it clears only what it wrote: an award added while the replay is in flight waits for the next commit.
     */
    recover(): Promise<boolean> {
      return chain(async () => {
        if (!degraded) return true;
        const copy = journal.copy();
        try {
          // Dead letters first: an award leaves the queue only once its dead letter is stored (never in neither).
          await dead.setMany(copy.dead);
          await queue.setMany(copy.awards);
          await queue.delMany(copy.deletes);
        } catch {
          return false;
        }
        journal.stored(copy);
        degraded = false;
        // What was added meanwhile (kept in the journal) goes in the next commit.
        if (journal.awards().length && !next) void commit();
        return true;
      });
    },
  };
}
