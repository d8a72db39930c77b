// One player's awards reach the service one after another, in the order they came in: the player's history in the
// service is in award order, and two requests of one player never race. A player whose turn nobody holds takes it
// at once, without a promise chain (the common case: one award per player at a time); the others wait in a queue.
import { onAbort, type AnySignal } from '../kit/signal.js';

export interface PlayerQueue {
  /**
   * Waits for this player's earlier work, then holds the player's turn until `release`. `busy`: too many players
   * are waiting; `cancelled`: the signal fired first (its turn is given up, later work is not held back by it).
   */
  acquire(player: string, signal?: AnySignal): Promise<Turn | 'busy' | 'cancelled'>;
  /** Players with work queued or running (for tests and metrics). */
  readonly size: number;
}

export interface Turn {
  release(): void;
}

/** Grants a waiter the turn. */
type Waiter = () => void;
/** The queue of a player whose turn is held and nobody waits for (never written to). */
const NONE: Waiter[] = [];
const BUSY = Promise.resolve('busy' as const);
const CANCELLED = Promise.resolve('cancelled' as const);

/** `maxPlayers` bounds the players held at once (a map keyed by client input): the next new player is `busy`. */
export function createPlayerQueue(maxPlayers = 10_000): PlayerQueue {
  // A player present holds the turn; the array is who waits for it, in order.
  const queues = new Map<string, Waiter[]>();

  const turnOf = (player: string): Turn => {
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        const waiting = queues.get(player) as Waiter[];
        const next = waiting.shift();
        if (next) next();
        else queues.delete(player);
      },
    };
  };

  return {
    get size() {
      return queues.size;
    },
    acquire(player, signal) {
      const waiting = queues.get(player);
      if (waiting === undefined && queues.size >= maxPlayers) return BUSY;
      if (signal?.aborted) return CANCELLED;
      if (waiting === undefined) {
        queues.set(player, NONE);
        return Promise.resolve(turnOf(player));
      }
      let queue = waiting;
      if (queue === NONE) {
        queue = [];
        queues.set(player, queue);
      }
      return new Promise((resolve) => {
        const granted: Waiter = () => {
          stop?.();
          resolve(turnOf(player));
        };
        queue.push(granted);
        const stop =
          signal &&
          onAbort(signal, () => {
            // Given up while waiting: out of the queue, so nobody behind it waits for it.
            const at = queue.indexOf(granted);
            if (at >= 0) queue.splice(at, 1);
            resolve('cancelled');
          });
      });
    },
  };
}
