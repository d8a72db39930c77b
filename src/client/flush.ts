import type { Announcer } from './announce.js';
import type { QuestPointsEmitter } from './events.js';
import { createFlusher, type FlushResult } from './flusher.js';
import type { Lock } from './lock.js';
import type { Outbox } from './outbox.js';
import type { Reads } from './reads.js';
import type { SendResult } from './send.js';
import type { ClientStore } from './state.js';
import type { Transport } from './transport.js';
import { unref } from './triggers.js';
import type { PendingAward } from './types.js';

export interface FlushDeps {
  store: ClientStore;
  events: QuestPointsEmitter;
  outbox: Outbox;
  transport: Transport;
  announcer: Announcer;
  reads: Reads;
  lock: Lock;
  backoff: { baseMs: number; maxMs: number };
  authPauseMs: number;
  /** The option backgroundSync: hands the outbox to the service worker for when the network is back. */
  requestSync(): void;
  /** The session's player (the client's serviceUserId option): only its awards are sent (players.ts). */
  player?: string;
  /** The token was refused as another player's: the next request asks getToken() again (resolves once it will). */
  invalidateToken?(): Promise<unknown> | undefined;
}

/**
 * How long a tab that found another sender draining (`busy`) waits before it looks again, while it holds awards: the
 * sender may be another player's tab, which leaves this player's awards in the store (players.ts).
 */
const BUSY_RECHECK_MS = 1000;

/**
 * Flush scheduling and what each result means for the page: the flush timer, the drain's batches told (online, the
 * token pause), and its end (retry timer, `award:retrying`, `queue:drained`, `auth:required`, `deployment:refused`,
 * the reads after it).
 * The flusher (flusher.ts) owns the drain and the backoff; this owns when it runs and what its answers mean.
 */
export function createFlush(deps: FlushDeps) {
  const { store, events, announcer, reads } = deps;
  /** The next run: after an award (unforced) or at the end of a backoff (forced). */
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The last result told (the callers that joined one drain share one result object). */
  let last: FlushResult | undefined;

  /** One batch's results from this tab: what they mean for `online` and the pauses is the reducer's (state.ts). */
  async function settle(head: PendingAward[], results: SendResult[]) {
    store.dispatch({ type: 'batch', results });
    await announcer.settle(head, results);
  }

  const flusher = createFlusher({ ...deps, settle });

  /** A run of the flusher, and what its result means here. Every run goes through this. */
  async function flush(force: boolean): Promise<void> {
    const result = await flusher.run(force);
    // Callers that joined one drain get its one result: it is told once.
    if (result === last) return;
    last = result;
    if (result.outcome !== 'busy' && result.outcome !== 'closed') reads.refresh(announcer.takeAcked());
    // The drain read the store: awards another tab settled there without telling are settled here.
    void announcer.unheard();
    if (result.outcome === 'drained') {
      store.dispatch({ type: 'drain', outcome: 'drained' });
      events.emit('queue:drained', { queueSize: 0 });
    }
    // Another sender holds the lock: it sends its own player's awards only, so this tab looks again after it.
    if (result.outcome === 'busy' && deps.outbox.size() > 0) schedule(BUSY_RECHECK_MS, false);
    if (result.outcome === 'error') events.emit('error', { error: result.error, during: 'flush' });
    if (result.outcome === 'auth') {
      store.dispatch({ type: 'drain', outcome: 'auth' });
      deps.requestSync();
      events.emit('auth:required', { error: result.error });
    }
    if (result.outcome === 'retry' && result.retrying.length) {
      schedule(result.delayMs, true);
      deps.requestSync();
      const { attempt, delayMs, refused } = result;
      // The deployment refused the queue (not the awards): held and said so, retried at the end of the backoff.
      if (refused) {
        store.dispatch({ type: 'drain', outcome: 'refused' });
        events.emit('deployment:refused', { ...refused, attempt, delayMs });
      }
      for (const r of result.retrying)
        events.emit('award:retrying', { ...r, attempt, delayMs, persisted: announcer.persisted(r.award.idempotencyKey) });
    }
  }

  /** Unforced (after an award): a timer already set stands. Forced (the end of a backoff): it replaces it. */
  function schedule(delayMs: number, force: boolean) {
    if (timer !== undefined && !force) return;
    clearTimeout(timer);
    timer = unref(
      setTimeout(() => {
        timer = undefined;
        void flush(force);
      }, delayMs),
    );
  }

  return {
    flush,
    schedule,
    /** The drain in progress, if any. */
    current: flusher.current,
    /** No more runs: the timer stops, a drain in progress stops after its batch. */
    stop() {
      clearTimeout(timer);
      flusher.stop();
    },
  };
}

export type Flush = ReturnType<typeof createFlush>;
