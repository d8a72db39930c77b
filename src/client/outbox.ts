import type { Rescue } from './rescue.js';
import type { KV } from './store.js';
import { storageFailure } from './store.js';
import type { DeadLetter, PendingAward, StorageDegradedReason } from './types.js';
import { pairOf } from './live.js';

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
}

/**
 * The queue of unacknowledged awards: IndexedDB (or memory) is the truth shared by tabs; `mirror` is this tab's
 * copy so award() never reads the store. The outbox schedules its own writes: the awards added in one tick go in
 * one setMany (one transaction), issued in a microtask after the first of them. While the store fails, everything
 * stays in memory and `unwritten`/`deletes` are replayed by recover().
 */
export function createOutbox({ queue, dead, degraded: onDegraded, committed, durable = true, rescue }: OutboxDeps) {
  const mirror = new Map<string, PendingAward>();
  const byPair = new Map<string, Map<string, PendingAward>>();
  /** Awards known from another tab's message, not written by this tab. */
  const remote = new Set<string>();
  const unwritten = new Map<string, PendingAward>();
  const deletes = new Set<string>();
  /** Settled by another tab, whose delete may not have landed yet: reload() must not bring them back either. */
  const settledElsewhere = new Set<string>();
  /**
   * Gone from the store before the word of it came: another tab (or the worker) settled them, and its 'done' message,
   * posted once its deletes land, is on its way. reload() takes them out of the queue; remove() still hands them over
   * when the message comes, so their `settled` promises and events are not lost.
   */
  const vanished = new Map<string, PendingAward>();
  const unwrittenDead = new Map<string, DeadLetter>();
  let degraded = false;
  let writing: Promise<unknown> = Promise.resolve();
  let lastSeq = 0;
  let rescued = false;
  /** The awards added since the last write began: settles true once they are in the store. */
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

  function keep(rec: PendingAward) {
    mirror.set(rec.idempotencyKey, rec);
    const pair = pairOf(rec);
    let ofPair = byPair.get(pair);
    if (!ofPair) {
      ofPair = new Map();
      byPair.set(pair, ofPair);
    }
    ofPair.set(rec.idempotencyKey, rec);
    if (rec.seq > lastSeq) lastSeq = rec.seq;
  }

  function forget(key: string): PendingAward | undefined {
    const rec = mirror.get(key);
    mirror.delete(key);
    remote.delete(key);
    unwritten.delete(key);
    if (rec) byPair.get(pairOf(rec))?.delete(key);
    return rec;
  }

  function takeVanished(key: string): PendingAward | undefined {
    const rec = vanished.get(key);
    vanished.delete(key);
    return rec;
  }

  /** Still in the store but no longer queued: deleted here (not yet landed) or settled by another tab. reload() skips it. */
  const leaving = (key: string) => deletes.has(key) || settledElsewhere.has(key);

  /** Chains store work so reload() sees every earlier write. */
  const chain = (work: () => Promise<unknown>) => (writing = writing.then(work, work));

  /** This tab's rescue holds what is not known committed (added, or in a commit still in flight); none: removed. */
  const stash = () => rescue?.save([...unwritten.values()]);

  // Start-up: awards an earlier page rescued join the store, unless known there (queued or dead-lettered); their
  // rescues are removed once that write is committed (a failing store leaves them for a later page).
  const found = rescue?.found();
  if (found?.keys.length)
    void chain(async () => {
      const merged = await attempt(async () => {
        const known = new Set([...(await queue.all()), ...(await dead.all())].map((r) => r.idempotencyKey));
        await queue.setMany(found.awards.filter((r) => !known.has(r.idempotencyKey)).map((r) => [r.idempotencyKey, r]));
      });
      if (merged) rescue?.drop(found.keys);
    });

  /** Writes what add() collected, in one transaction, after earlier store work. True when it is in the store. */
  function commit(): Promise<boolean> {
    const taken = next;
    next = undefined;
    return chain(async () => {
      // Taken together, so every award in this batch settles with this write (later ones wait for the next).
      const batch = [...unwritten];
      // Kept in `unwritten` until written, so reload() never mistakes an award in flight for an acknowledged one.
      // Empty: an earlier commit, issued before this one but run after these awards were added, wrote them (a failed
      // write leaves its awards in `unwritten`). They are stored: `persisted` is true, not false.
      const ok = batch.length === 0 ? !degraded : await attempt(() => queue.setMany(batch));
      taken?.wrote(ok && durable);
      if (!ok || !batch.length) return ok && !!taken;
      for (const [k, v] of batch) if (unwritten.get(k) === v) unwritten.delete(k);
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
    }) as Promise<boolean>;
  }

  return {
    mirror,
    get degraded() {
      return degraded;
    },
    /** Strictly increasing in this tab, and time-ordered across tabs and reloads. */
    nextSeq: () => (lastSeq = Math.max(lastSeq + 1, Date.now() * 1000)),
    /**
     * O(1): the write is issued in a microtask, with every award of this tick. Resolves true once it is stored (in a
     * durable store): one promise for the tick's awards.
     */
    add(rec: PendingAward): Promise<boolean> {
      keep(rec);
      unwritten.set(rec.idempotencyKey, rec);
      if (!next) {
        let wrote!: (ok: boolean) => void;
        const written = new Promise<boolean>((resolve) => (wrote = resolve));
        next = { written, wrote };
        queueMicrotask(commit);
      }
      return next.written;
    },
    /** Awards another tab wrote: shown, never written again by this tab. */
    addRemote(recs: PendingAward[]) {
      // Skips what is already settled: a fast tab's 'done' can overtake its own 'add'.
      for (const rec of recs) {
        if (mirror.has(rec.idempotencyKey) || settledElsewhere.has(rec.idempotencyKey)) continue;
        keep(rec);
        remote.add(rec.idempotencyKey);
      }
    },
    commit,
    /** Resolves once every store operation issued so far is done. */
    landed: () => chain(async () => {}),
    /** Acknowledged (or dead-lettered) awards leave the outbox. `local`: this tab deletes them from the store. */
    remove(keys: string[], local: boolean): PendingAward[] {
      const removed = keys.map((k) => forget(k) ?? takeVanished(k)).filter((r): r is PendingAward => !!r);
      if (local) {
        // Until deleted from the store, reload() must not bring them back.
        for (const k of keys) deletes.add(k);
        void chain(async () => {
          if (!(await attempt(() => queue.delMany(keys)))) return;
          for (const k of keys) deletes.delete(k);
        });
      } else {
        for (const k of keys) settledElsewhere.add(k);
      }
      return removed;
    },
    /** The dead letter is stored before the award leaves the queue: it is never in neither. */
    kill(letters: DeadLetter[]) {
      const entries = letters.map((d): [string, DeadLetter] => [d.idempotencyKey, d]);
      return chain(async () => {
        if (await attempt(() => dead.setMany(entries))) return;
        for (const [k, d] of entries) unwrittenDead.set(k, d);
      });
    },
    async deadLetters(): Promise<DeadLetter[]> {
      const stored = await dead.all().catch((error: unknown): DeadLetter[] => {
        degrade(error);
        return [];
      });
      const all = new Map(stored.map((d) => [d.idempotencyKey, d]));
      for (const [k, d] of unwrittenDead) all.set(k, d);
      return [...all.values()].sort((a, b) => a.seq - b.seq);
    },
    /** Removes a dead letter; false when there was none under this key. */
    async dropDead(key: string): Promise<boolean> {
      const known = unwrittenDead.delete(key) || (await dead.get(key).catch(() => undefined)) !== undefined;
      if (known) await dead.delMany([key]).catch(degrade);
      return known;
    },
    /**
     * The queue as the store holds it now (another tab may have added or acknowledged awards), merged into the
     * mirror, oldest first. While degraded: this tab's own awards only.
     */
    async reload(): Promise<PendingAward[]> {
      await chain(() =>
        attempt(async () => {
          const seen = new Set<string>();
          const stillStored = new Set<string>();
          // The keys first, and only the records this tab does not hold: a drain after a burst of 10,000 read back
          // all of them (the values copied out of IndexedDB and cloned into new objects) just to find them known.
          const missing: string[] = [];
          const stored = await queue.keys();
          for (const key of stored) {
            if (settledElsewhere.has(key)) stillStored.add(key);
            if (leaving(key)) continue;
            seen.add(key);
            if (!mirror.has(key)) missing.push(key);
            remote.delete(key);
          }
          for (const key of [...mirror.keys()]) {
            if (seen.has(key) || unwritten.has(key)) continue;
            const rec = forget(key);
            if (rec) vanished.set(key, rec);
          }
          // The other tab's delete has landed: nothing left to guard against (the set stays bounded by the store).
          for (const key of [...settledElsewhere]) if (!stillStored.has(key)) settledElsewhere.delete(key);
          if (!missing.length) return;
          // Read apart from the keys: meanwhile a record may have been deleted (none), settled elsewhere or heard of.
          // A few by key; many (an earlier page's outbox at start-up) in one getAll: in Chromium a get costs about
          // 25 µs and getAll about 7 µs a record, so past a quarter of the store one read of it all is cheaper.
          const read = missing.length * 4 <= stored.length ? await queue.getMany(missing) : await queue.all();
          for (const rec of read) {
            if (!rec || leaving(rec.idempotencyKey)) continue;
            if (!mirror.has(rec.idempotencyKey)) keep(rec);
            remote.delete(rec.idempotencyKey);
          }
        }),
      );
      return this.queued();
    },
    /** The mirror, oldest first, without reading the store. While degraded: this tab's own awards only. */
    queued: (): PendingAward[] => [...mirror.values()].filter((r) => !degraded || !remote.has(r.idempotencyKey)).sort((a, b) => a.seq - b.seq),
    /** On pagehide, synchronously: the awards this page could still lose go to its rescue. */
    rescue() {
      rescued = true;
      stash();
    },
    pendingOf: (pair: string) => [...(byPair.get(pair)?.values() ?? [])],
    /** Replays what failed while degraded; true when the store works again. */
    async recover(): Promise<boolean> {
      if (!degraded) return true;
      try {
        await queue.setMany([...unwritten]);
        await queue.delMany([...deletes]);
        await dead.setMany([...unwrittenDead]);
      } catch {
        return false;
      }
      unwritten.clear();
      deletes.clear();
      unwrittenDead.clear();
      degraded = false;
      return true;
    },
  };
}
