import { BATCH_MAX_AWARDS } from '../protocol/limits.js';
import type { Outbox } from './outbox.js';
import { backoffDelay } from './retry.js';
import { sendAwards, type SendResult } from './send.js';
import type { Transport } from './transport.js';
import { unref } from './triggers.js';
import type { PendingAward, QuestPointsEvents } from './types.js';

type Payload<E extends keyof QuestPointsEvents> = Parameters<QuestPointsEvents[E]>[0];

export interface FlusherDeps {
  outbox: Outbox;
  transport: Transport;
  /** Runs the drain only if no other tab (or worker) is draining this outbox. */
  lock: (fn: () => Promise<void>) => Promise<unknown>;
  backoff: { baseMs?: number; maxMs?: number };
  pollIntervalMs: number;
  closed(): boolean;
  setOnline(online: boolean): void;
  /** Applies one batch's results: acknowledged awards leave the outbox, refused ones become dead letters. */
  settle(head: PendingAward[], results: SendResult[]): Promise<void>;
  /** A token could not be had or was refused (error), or works again (undefined). */
  auth(error: unknown): void;
  retrying(payload: Payload<'award:retrying'>): void;
  drained(): void;
  /** Once per drain, whatever ended it: the coalesced read of what it acknowledged. */
  afterDrain(): void;
  error(error: unknown): void;
}

/**
 * Flush scheduling and backoff: one drain at a time in this tab (and, through the lock, across tabs), oldest first
 * in batches of up to 100; the whole queue backs off together (exponential, full jitter, Retry-After honoured) so
 * order is kept. A trigger during a drain runs once more right after it.
 */
export function createFlusher(deps: FlusherDeps) {
  const { outbox, backoff } = deps;
  let retryAt = 0;
  let attempt = 0;
  let authPaused = false;
  let flushing: Promise<void> | undefined;
  let rerun: Promise<void> | undefined;
  let rerunForced = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  async function drain(): Promise<void> {
    // The store is read once per drain (other tabs' awards and acknowledgements); after that the mirror, which
    // BroadcastChannel keeps current, gives each next batch. Reading the store per batch made a drain quadratic.
    for (let fromStore = true; !deps.closed(); fromStore = false) {
      const head = (fromStore ? await outbox.reload() : outbox.queued()).slice(0, BATCH_MAX_AWARDS);
      if (!head.length) {
        deps.drained();
        return;
      }
      const results = await sendAwards(deps.transport, head);
      const first = results[0]!;
      if (first.outcome !== 'auth') deps.setOnline(!(first.outcome === 'retry' && first.status === undefined));
      await deps.settle(head, results);
      const auth = results.find((r) => r.outcome === 'auth');
      if (auth) {
        // Paused: the poll, `online`, a visible tab or flush() try getToken again.
        retryAt = Date.now() + deps.pollIntervalMs;
        authPaused = true;
        deps.auth(auth.error);
        return;
      }
      if (results.some((r) => r.outcome === 'retry')) {
        scheduleRetry(head, results);
        return;
      }
      retryAt = 0;
      attempt = 0;
      if (authPaused) {
        authPaused = false;
        deps.auth(undefined);
      }
    }
  }

  function scheduleRetry(head: PendingAward[], results: SendResult[]) {
    // A batch that settled some awards made progress: the backoff starts over (Retry-After still holds). Otherwise a
    // steady fraction of faults, which almost every 100-award batch meets, would push every send to maxMs.
    if (results.some((r) => r.outcome === 'ok' || r.outcome === 'rejected')) attempt = 0;
    let afterMs = 0;
    for (const r of results) if (r.outcome === 'retry') afterMs = Math.max(afterMs, r.retryAfterMs ?? 0);
    const delayMs = backoffDelay(attempt++, backoff.baseMs ?? 1000, backoff.maxMs ?? 60_000, afterMs);
    retryAt = Date.now() + delayMs;
    clearTimeout(retryTimer);
    retryTimer = unref(setTimeout(() => void run(true), delayMs));
    results.forEach((r, i) => {
      if (r.outcome === 'retry') deps.retrying({ award: head[i]!, reason: r.reason, status: r.status, attempt, delayMs });
    });
  }

  /** `force` ignores backoff and the auth pause: flush(), `online`, a visible tab, the retry timer. */
  function run(force: boolean): Promise<void> {
    if (deps.closed() || (!force && Date.now() < retryAt)) return Promise.resolve();
    // A trigger during a flush (even while its lock is being released) runs once more right after it, forced only
    // if a forced trigger asked: the flush that just ended may have set a backoff that the others must respect.
    if (flushing) {
      rerunForced ||= force;
      rerun ??= flushing.then(() => {
        const forced = rerunForced;
        rerun = undefined;
        rerunForced = false;
        return run(forced);
      });
      return rerun;
    }
    // A degraded tab's awards exist only in its memory: it sends them itself, the service dedupes by key.
    const drained = outbox.degraded ? drain() : deps.lock(drain);
    flushing = drained
      .then(() => {}, deps.error)
      .then(deps.afterDrain)
      .finally(() => {
        flushing = undefined;
      });
    return flushing;
  }

  return {
    run,
    /** The drain in progress, if any. */
    current: () => flushing,
    stop() {
      clearTimeout(retryTimer);
    },
  };
}
