import type { DeadLetter, PendingAward } from './types.js';

/** What the journal held when a write of it began: recover() clears exactly this once it is stored, nothing later. */
export interface JournalCopy {
  awards: [string, PendingAward][];
  deletes: string[];
  dead: [string, DeadLetter][];
}

/**
 * What this tab holds that the store does not (yet): awards added but not committed (this tick's, or every award
 * while the store fails), deletes issued but not landed, and dead letters the store refused. The outbox replays it
 * with recover(). Each entry leaves only when the write that carried it landed: an entry replaced meanwhile (the same
 * key added again) stays for the next write.
 */
export function createJournal() {
  const awards = new Map<string, PendingAward>();
  const deletes = new Set<string>();
  const dead = new Map<string, DeadLetter>();
  /** Removes the entries of `written` that are still the ones written. */
  const clear = <V>(map: Map<string, V>, written: [string, V][]) => {
    for (const [k, v] of written) if (map.get(k) === v) map.delete(k);
  };

  return {
    add: (rec: PendingAward) => void awards.set(rec.idempotencyKey, rec),
    has: (key: string) => awards.has(key),
    /** The award left the queue before it was written: nothing of it is to be written. */
    drop: (key: string) => void awards.delete(key),
    /** The awards not yet written, as [key, award] for setMany. */
    awards: () => [...awards],
    /** The awards not yet written: what a pagehide must rescue. */
    unwritten: () => [...awards.values()],
    written: (batch: [string, PendingAward][]) => clear(awards, batch),
    deleting: (keys: string[]) => {
      for (const k of keys) deletes.add(k);
    },
    isDeleting: (key: string) => deletes.has(key),
    deleted: (keys: string[]) => {
      for (const k of keys) deletes.delete(k);
    },
    /** Dead letters the store refused, kept until recover() writes them. */
    keepDead: (entries: [string, DeadLetter][]) => {
      for (const [k, d] of entries) dead.set(k, d);
    },
    deadLetters: () => [...dead.values()],
    /** True when the dead letter was here (then it will not be written). */
    dropDead: (key: string) => dead.delete(key),
    copy: (): JournalCopy => ({ awards: [...awards], deletes: [...deletes], dead: [...dead] }),
    /** recover() stored `copy`: its entries leave, unless they changed meanwhile. */
    stored(copy: JournalCopy) {
      clear(awards, copy.awards);
      for (const k of copy.deletes) deletes.delete(k);
      clear(dead, copy.dead);
    },
  };
}

export type Journal = ReturnType<typeof createJournal>;
