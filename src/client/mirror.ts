import { pairOf } from './pair.js';
import type { PendingAward } from './types.js';

/**
 * How long an award gone from the store may wait for the word of the tab that settled it. That tab posts 'done' as
 * soon as its deletes land, so the word comes within milliseconds unless the tab died in between; then the award is
 * handed over as settled unheard (the outbox's `unheard`), so the set stays bounded and its `settled` still resolves.
 */
export const VANISHED_MS = 10_000;

/**
 * This tab's copy of the queue (so award() never reads the store), indexed by pair, and what it knows of the other
 * tabs' work on it: awards heard from another tab, awards settled elsewhere whose delete may not have landed, and
 * awards gone from the store before the word of it came. The store is the truth shared by tabs; the outbox's
 * reload() reconciles this copy with it.
 */
export function createMirror(now: () => number) {
  const awards = new Map<string, PendingAward>();
  const byPair = new Map<string, Map<string, PendingAward>>();
  /** Awards known from another tab's message, not written by this tab. */
  const remote = new Set<string>();
  /** Settled by another tab, whose delete may not have landed yet: reload() must not bring them back either. */
  const settledElsewhere = new Set<string>();
  /** Gone from the store before the word of it came (see VANISHED_MS), with when. */
  const vanished = new Map<string, { award: PendingAward; at: number }>();
  /** Awards that left through `vanished`: out of this tab's view for a while, so a read since may hold them. */
  const late = new WeakSet<PendingAward>();
  let lastSeq = 0;

  function keep(rec: PendingAward) {
    awards.set(rec.idempotencyKey, rec);
    const pair = pairOf(rec);
    const ofPair = byPair.get(pair) ?? new Map<string, PendingAward>();
    if (!ofPair.size) byPair.set(pair, ofPair);
    ofPair.set(rec.idempotencyKey, rec);
    if (rec.seq > lastSeq) lastSeq = rec.seq;
  }

  function forget(key: string): PendingAward | undefined {
    const rec = awards.get(key);
    if (!rec) return undefined;
    awards.delete(key);
    remote.delete(key);
    const pair = pairOf(rec);
    const ofPair = byPair.get(pair);
    ofPair?.delete(key);
    if (ofPair && !ofPair.size) byPair.delete(pair);
    return rec;
  }

  return {
    keep,
    size: () => awards.size,
    has: (key: string) => awards.has(key),
    /** Strictly increasing in this tab, and time-ordered across tabs and reloads. */
    nextSeq: () => (lastSeq = Math.max(lastSeq + 1, now() * 1000)),
    /** Heard from another tab: shown, never written by this tab. Skips what is already settled. */
    heard(rec: PendingAward) {
      if (awards.has(rec.idempotencyKey) || settledElsewhere.has(rec.idempotencyKey)) return;
      keep(rec);
      remote.add(rec.idempotencyKey);
    },
    /** Seen in the store: written by some tab, so no longer only heard of. */
    stored: (key: string) => void remote.delete(key),
    /** Leaves the queue: the award as this tab knew it (from the queue, or from the vanished). */
    take(key: string): PendingAward | undefined {
      const gone = vanished.get(key)?.award;
      vanished.delete(key);
      if (gone) late.add(gone);
      return forget(key) ?? gone;
    },
    /** Left the queue through `vanished` (take() or unheard()): a read since it vanished may already count it. */
    isLate: (award: PendingAward) => late.has(award),
    settledElsewhere: (keys: string[]) => {
      for (const k of keys) settledElsewhere.add(k);
    },
    isSettledElsewhere: (key: string) => settledElsewhere.has(key),
    /** The other tab's deletes have landed for every key not in `stillStored`: nothing left to guard against. */
    landedElsewhere(stillStored: Set<string>) {
      for (const key of [...settledElsewhere]) if (!stillStored.has(key)) settledElsewhere.delete(key);
    },
    /** Gone from the store (not `kept`), no word yet: out of the queue, kept aside for take(); returns them. */
    vanishUnless(kept: (key: string) => boolean): PendingAward[] {
      const gone: PendingAward[] = [];
      for (const [key, award] of awards)
        if (!kept(key)) {
          forget(key);
          vanished.set(key, { award, at: now() });
          gone.push(award);
        }
      return gone;
    },
    /** The vanished awards whose word did not come within VANISHED_MS: they leave, for the caller to settle. */
    unheard(): PendingAward[] {
      const out: PendingAward[] = [];
      for (const [key, { award, at }] of vanished)
        if (now() - at >= VANISHED_MS) {
          vanished.delete(key);
          late.add(award);
          out.push(award);
        }
      return out;
    },
    /** Oldest first. `ownOnly`: without the awards only heard of (a degraded tab cannot send what it never stored). */
    queued: (ownOnly: boolean): PendingAward[] =>
      [...awards.values()].filter((r) => !ownOnly || !remote.has(r.idempotencyKey)).sort((a, b) => a.seq - b.seq),
    ofPair: (pair: string) => [...(byPair.get(pair)?.values() ?? [])],
  };
}

export type Mirror = ReturnType<typeof createMirror>;
