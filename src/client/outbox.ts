import type { KV } from './store.js';
import { storageFailure } from './store.js';
import type { DeadLetter, PendingAward, StorageDegradedReason } from './types.js';

/** Key of a (questId, serviceUserId) pair. Ids never contain control characters, so '\n' cannot be ambiguous. */
export const pointsKey = (questId: string, serviceUserId: string) => `${questId}\n${serviceUserId}`;

export type Outbox = ReturnType<typeof createOutbox>;

/**
 * The queue of unacknowledged awards: IndexedDB (or memory) is the truth shared by tabs; `mirror` is this tab's
 * copy so award() never reads the store. Writes of one tick go in one setMany (one transaction). While the store
 * fails, everything stays in memory and `unwritten`/`deletes` are replayed by recover().
 */
export function createOutbox(queue: KV<PendingAward>, dead: KV<DeadLetter>, onDegraded: (reason: StorageDegradedReason, error: unknown) => void) {
  const mirror = new Map<string, PendingAward>();
  const byPair = new Map<string, Map<string, PendingAward>>();
  /** Awards known from another tab's message, not written by this tab. */
  const remote = new Set<string>();
  const unwritten = new Map<string, PendingAward>();
  const deletes = new Set<string>();
  const unwrittenDead = new Map<string, DeadLetter>();
  let degraded = false;
  let writing: Promise<void> = Promise.resolve();
  let lastSeq = 0;

  function degrade(error: unknown) {
    if (!degraded) onDegraded(storageFailure(error), error);
    degraded = true;
  }

  function keep(rec: PendingAward) {
    mirror.set(rec.idempotencyKey, rec);
    const pair = pointsKey(rec.questId, rec.serviceUserId);
    let entries = byPair.get(pair);
    if (!entries) byPair.set(pair, (entries = new Map()));
    entries.set(rec.idempotencyKey, rec);
    if (rec.seq > lastSeq) lastSeq = rec.seq;
  }

  function forget(key: string): PendingAward | undefined {
    const rec = mirror.get(key);
    if (!rec) return;
    mirror.delete(key);
    remote.delete(key);
    unwritten.delete(key);
    byPair.get(pointsKey(rec.questId, rec.serviceUserId))?.delete(key);
    return rec;
  }

  /** Chains store work so reload() sees every earlier write. */
  const chain = (work: () => Promise<void>) => (writing = writing.then(work, work));

  return {
    mirror,
    get degraded() {
      return degraded;
    },
    /** Strictly increasing in this tab, and time-ordered across tabs and reloads. */
    nextSeq: () => (lastSeq = Math.max(lastSeq + 1, Date.now() * 1000)),
    /** O(1): the write is done by commit(), once per tick. */
    add(rec: PendingAward) {
      keep(rec);
      unwritten.set(rec.idempotencyKey, rec);
    },
    /** Awards another tab wrote: shown, never written again by this tab. */
    addRemote(recs: PendingAward[]) {
      for (const rec of recs) if (!mirror.has(rec.idempotencyKey)) keep(rec), remote.add(rec.idempotencyKey);
    },
    /** Writes what add() collected since the last commit, in one transaction. Resolves true when it is on disk. */
    commit(): Promise<void> {
      return chain(async () => {
        if (degraded || !unwritten.size) return;
        // Kept in `unwritten` until written, so reload() never mistakes an award in flight for an acknowledged one.
        const batch = [...unwritten];
        try {
          await queue.setMany(batch);
          for (const [k, v] of batch) if (unwritten.get(k) === v) unwritten.delete(k);
        } catch (error) {
          degrade(error);
        }
      });
    },
    /** Acknowledged (or dead-lettered) awards leave the outbox. */
    remove(keys: string[], local = true): PendingAward[] {
      const removed = keys.map(forget).filter((r): r is PendingAward => !!r);
      // Until deleted from the store, reload() must not bring them back.
      if (local) keys.forEach((k) => deletes.add(k));
      if (local)
        void chain(async () => {
          if (!degraded)
            try {
              await queue.delMany(keys);
              keys.forEach((k) => deletes.delete(k));
            } catch (error) {
              degrade(error);
            }
        });
      return removed;
    },
    /** The dead letter is stored before the award leaves the queue: it is never in neither. */
    async kill(letter: DeadLetter) {
      await chain(async () => {
        try {
          if (degraded) throw new Error('degraded');
          await dead.setMany([[letter.idempotencyKey, letter]]);
        } catch (error) {
          unwrittenDead.set(letter.idempotencyKey, letter);
          if (!degraded) degrade(error);
        }
      });
    },
    async deadLetters(): Promise<DeadLetter[]> {
      let stored: DeadLetter[] = [];
      try {
        stored = await dead.all();
      } catch (error) {
        degrade(error);
      }
      const all = new Map(stored.map((d) => [d.idempotencyKey, d]));
      for (const [k, d] of unwrittenDead) all.set(k, d);
      return [...all.values()].sort((a, b) => a.seq - b.seq);
    },
    async dropDead(key: string) {
      unwrittenDead.delete(key);
      await dead.delMany([key]).catch(degrade);
    },
    /**
     * The queue as the store holds it now (another tab may have added or acknowledged awards), merged into the
     * mirror, oldest first. While degraded: this tab's own awards only.
     */
    async reload(): Promise<PendingAward[]> {
      await chain(async () => {
        if (degraded) return;
        try {
          const stored = await queue.all();
          const seen = new Set<string>();
          for (const rec of stored) {
            if (deletes.has(rec.idempotencyKey)) continue;
            seen.add(rec.idempotencyKey);
            if (!mirror.has(rec.idempotencyKey)) keep(rec);
            remote.delete(rec.idempotencyKey);
          }
          for (const key of [...mirror.keys()]) if (!seen.has(key) && !unwritten.has(key)) forget(key);
        } catch (error) {
          degrade(error);
        }
      });
      return [...mirror.values()].filter((r) => !degraded || !remote.has(r.idempotencyKey)).sort((a, b) => a.seq - b.seq);
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
