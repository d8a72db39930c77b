import { ABORTED, orAbort } from '../kit/signal.js';

// One player's awards reach the service one after another, in the order they reached this relay instance: a reloaded
// page's batch waits for its predecessor's (still in flight), a pagehide beacon for the batch before it. Interleaved,
// the service would stamp them out of award order. Entries live only while a player has work queued, and the map is
// bounded: past maxPlayers waiting players, new ones are told to come back (never an unbounded map keyed by input).

export interface PlayerQueue {
  /**
   * Waits for this player's earlier work, then holds the player's turn until `release`. `busy`: too many players
   * are waiting; `cancelled`: the signal fired first (its turn is given up, later work is not held back by it).
   */
  acquire(player: string, signal?: AbortSignal): Promise<{ release: () => void } | 'busy' | 'cancelled'>;
  /** Players with work queued or running (for tests and metrics). */
  readonly size: number;
}

export function createPlayerQueue(maxPlayers = 10_000): PlayerQueue {
  const tails = new Map<string, Promise<void>>();
  return {
    get size() {
      return tails.size;
    },
    async acquire(player, signal) {
      const previous = tails.get(player);
      if (!previous && tails.size >= maxPlayers) return 'busy';
      let done!: () => void;
      const mine = new Promise<void>((resolve) => {
        done = resolve;
      });
      // The next caller waits for everything before it, this turn included, even if this one gives up early.
      const tail = (previous ?? Promise.resolve()).then(() => mine);
      tails.set(player, tail);
      // Forgotten once everything queued so far is done and nobody queued behind.
      void tail.then(() => {
        if (tails.get(player) === tail) tails.delete(player);
      });
      const release = () => done();
      if (previous && (await orAbort(previous, signal)) === ABORTED) {
        release();
        return 'cancelled';
      }
      if (signal?.aborted) {
        release();
        return 'cancelled';
      }
      return { release };
    },
  };
}
