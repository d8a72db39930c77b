import { BATCH_MAX_AWARDS } from '../protocol/limits.js';
import { QuestPointsError } from './errors.js';
import type { Lock } from './lock.js';
import type { Outbox } from './outbox.js';
import { createPlayers, isPlayerRefusal } from './players.js';
import { backoffDelay } from '../protocol/retry.js';
import type { DeploymentRefusal, SendResult } from './send.js';
import type { Transport } from './transport.js';
import type { PendingAward, RetryReason } from './types.js';

export type Flusher = ReturnType<typeof createFlusher>;

/**
 * One attempt for these awards (send-awards.ts: the batch endpoint, the singles, how answers are read), loaded with
 * the first send, not with the page. A chunk that could not be fetched (offline before it was cached) is an attempt
 * without an answer, as a request whose HTTP layer could not load (transport.ts).
 */
const sendAwards = (transport: Transport, awards: PendingAward[]): Promise<SendResult[]> =>
  import('./send-awards.js').then(
    (lazy) => lazy.sendAwards(transport, awards),
    () => awards.map((): SendResult => ({ outcome: 'retry', reason: 'network', noAnswer: true })),
  );

export interface FlusherDeps {
  outbox: Outbox;
  transport: Transport;
  /** Runs the drain only if no other tab (or worker) is draining this outbox; its signal aborts if the lock is lost. */
  lock: Lock;
  backoff: { baseMs: number; maxMs: number };
  /** How long sending pauses after getToken failed or a fresh token was refused. */
  authPauseMs: number;
  /** Applies one batch's results (settleBatch, and whatever the owner tells of them). */
  settle(head: PendingAward[], results: SendResult[]): Promise<unknown>;
  /** The session's player (the client's serviceUserId option): only its awards are sent (players.ts). */
  player?: string;
  /** The token was refused as another player's: the next request asks getToken() again (resolves once it will). */
  invalidateToken?(): Promise<unknown> | undefined;
}

/** One award that must wait, with why. */
export interface Retrying {
  award: PendingAward;
  reason: RetryReason;
  status?: number;
}

/**
 * How a run ended. `drained`: the outbox is empty. `retry`: awards wait until `at` (`retrying` lists those this run
 * tried, with `attempt` and `delayMs`; none when it only found the backoff still running; `refused`: the queue is held
 * by a refusal about the deployment, not the awards). `auth`: paused until a
 * token works. `busy`: another tab or the worker holds the lock. `closed`: stopped. `error`: the drain threw.
 */
export type FlushResult =
  | { outcome: 'drained' | 'busy' | 'closed' }
  | { outcome: 'retry'; at: number; delayMs: number; attempt: number; retrying: Retrying[]; refused?: DeploymentRefusal }
  | { outcome: 'auth'; error: unknown }
  | { outcome: 'error'; error: unknown };

/**
 * Flush scheduling and backoff: one drain at a time in this tab (and, through the lock, across tabs), oldest first
 * in batches of up to 100; the whole queue backs off together (exponential, full jitter, Retry-After honoured) so
 * order is kept. A trigger during a drain runs once more right after it. The flusher owns the backoff; when to run
 * and what a run means for the page (events, status) is its caller's business, from the result.
 */
export function createFlusher(deps: FlusherDeps) {
  const { outbox, backoff } = deps;
  /** The backoff: when the next unforced run may send, and the queue's consecutive failed attempts. */
  const wait = { at: 0, attempt: 0 };
  let flushing: Promise<FlushResult> | undefined;
  /** A run asked for during a drain: once more right after it, forced if any asker forced it. */
  const again: { done?: Promise<FlushResult>; force: boolean } = { force: false };
  let stopped = false;

  async function drain(lost?: AbortSignal): Promise<FlushResult> {
    // Only this session's player's awards: the others wait in the store for theirs (players.ts).
    const players = createPlayers(deps.player);
    let refreshed = false;
    // The store is read once per drain (other tabs' awards and acknowledgements); after that the mirror, which
    // BroadcastChannel keeps current, gives each next batch. Reading the store per batch made a drain quadratic.
    for (let fromStore = true; !stopped; fromStore = false) {
      // The lock was lost (lease.ts): another tab drains now; this one stops between batches.
      if (lost?.aborted) return { outcome: 'busy' };
      const head = (fromStore ? await outbox.reload() : outbox.queued()).filter(players.mine).slice(0, BATCH_MAX_AWARDS);
      // 'drained': nothing left that this session sends (another player's awards may still wait for theirs).
      if (!head.length) return { outcome: 'drained' };
      const results = await sendAwards(deps.transport, head);
      await deps.settle(head, results);
      // An award refused as another player's: the token may be stale (a switch of player), so it is asked for again.
      // The client's own player refused so: its token is another player's (signed out and in without a new client):
      // once more with a fresh one, as after a 401, then paused until a token works.
      if (players.refused(head, results)) {
        await deps.invalidateToken?.();
        if (deps.player !== undefined) {
          if (!refreshed) {
            refreshed = true;
            players.forgive();
            continue;
          }
          wait.at = Date.now() + deps.authPauseMs;
          return { outcome: 'auth', error: new QuestPointsError(`the token is not ${deps.player}'s`, 'auth', 403) };
        }
      }
      const auth = results.find((r) => r.outcome === 'auth');
      if (auth) {
        // Paused: the poll, `online`, a visible tab or flush() try getToken again.
        wait.at = Date.now() + deps.authPauseMs;
        return { outcome: 'auth', error: auth.error };
      }
      // Another player's awards (set aside above) hold nothing back: only a retry of this session's own backs off.
      if (results.some((r) => r.outcome === 'retry' && !isPlayerRefusal(r))) return backOff(head, results);
      wait.at = 0;
      wait.attempt = 0;
    }
    return { outcome: 'closed' };
  }

  function backOff(head: PendingAward[], results: SendResult[]): FlushResult {
    // A batch that settled some awards made progress: the backoff starts over (Retry-After still holds). Otherwise a
    // steady fraction of faults, which almost every 100-award batch meets, would push every send to maxMs.
    if (results.some((r) => r.outcome === 'ok' || r.outcome === 'rejected')) wait.attempt = 0;
    const retrying: Retrying[] = [];
    let afterMs = 0;
    let refused: DeploymentRefusal | undefined;
    head.forEach((award, i) => {
      const r = results[i];
      if (r?.outcome !== 'retry' || isPlayerRefusal(r)) return;
      afterMs = Math.max(afterMs, r.retryAfterMs ?? 0);
      refused ??= r.refused;
      retrying.push({ award, reason: r.reason, status: r.status });
    });
    // A deployment refusal backs off like any retry (capped at maxMs): a fixed deployment heals without a reload.
    const delayMs = backoffDelay(wait.attempt++, backoff.baseMs, backoff.maxMs, afterMs);
    wait.at = Date.now() + delayMs;
    return { outcome: 'retry', at: wait.at, delayMs, attempt: wait.attempt, retrying, refused };
  }

  /** `force` ignores backoff and the auth pause: flush(), `online`, a visible tab, the retry timer. */
  function run(force: boolean): Promise<FlushResult> {
    if (stopped) return Promise.resolve({ outcome: 'closed' });
    if (!force && Date.now() < wait.at)
      return Promise.resolve({ outcome: 'retry', at: wait.at, delayMs: wait.at - Date.now(), attempt: wait.attempt, retrying: [] });
    // A trigger during a flush (even while its lock is being released) runs once more right after it, forced only
    // if a forced trigger asked: the flush that just ended may have set a backoff that the others must respect.
    if (flushing !== undefined) {
      again.force ||= force;
      again.done ??= flushing.then(() => {
        const forced = again.force;
        again.done = undefined;
        again.force = false;
        return run(forced);
      });
      return again.done;
    }
    let result: FlushResult = { outcome: 'busy' };
    const sender = async (lost?: AbortSignal) => {
      result = await drain(lost);
    };
    // A degraded tab's awards exist only in its memory: it sends them itself, the service dedupes by key.
    const done = outbox.degraded ? sender() : deps.lock(sender);
    flushing = done
      .then(
        () => result,
        (error: unknown): FlushResult => ({ outcome: 'error', error }),
      )
      .finally(() => {
        flushing = undefined;
      });
    return flushing;
  }

  return {
    run,
    /** The drain in progress, if any. */
    current: () => flushing,
    /** No more runs: a drain in progress stops after its batch. */
    stop() {
      stopped = true;
    },
  };
}
